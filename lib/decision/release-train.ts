// A release train (docs/release-trains.md): an environment whose pull-request promotion is in a group with
// `waitForAll: true` opens the group's pull request only once every member is due there. The decision stays pure:
// what the other members' decisions say is an observation (DecisionInput.groups) the caller reads from the store and
// passes in, and `Decision.needs.groups` asks for it only when a promotion would start.
import { sameRevision } from '../flux/revision.js';
import { promotionGroupOf } from '../pipeline/promotion.js';
import { oneLine } from './text.js';
import type { Decision, DecisionInput, EnvironmentState } from './types.js';

export type { GroupMemberWait, GroupObservation } from './types.js';

/**
 * The states in which a member counts as due in the environment: its promotion would start now (it is decided with
 * the train taken as leaving), is under way, sits in the group's open pull request, or was merged and is rolling out
 * (the train it left with may hold the others' revisions too, merged before their own promotions started). In any
 * other state it holds the train back, also when it has nothing new to promote: the train waits for every member
 * (docs/release-trains.md).
 */
const DUE: ReadonlySet<EnvironmentState> = new Set(['promoting', 'pull-request-open', 'promoted']);

/** Whether a member, in the state its own decision gives it in the environment, holds the train back. */
export function holdsTheTrain(state: EnvironmentState): boolean {
  return !DUE.has(state);
}

/**
 * Holds back each promotion that would start in an environment of a train that waits for all: while the other
 * members are not read (`GroupUnread`, `needs.groups`), or some of them are not due (`AwaitingGroup`, naming
 * them in `waitsForMembers`). A promotion
 * whose record exists already (under way, failed, resumed) goes on: the train left with it.
 */
export function holdForReleaseTrains(input: DecisionInput, decision: Decision): Decision {
  const unread: string[] = [];
  const held = new Set<string>();
  const environments = decision.environments.map((explained) => {
    const action = decision.actions.find(
      (candidate) => candidate.type === 'promote' && candidate.env === explained.env,
    );
    const env = input.pipeline.environments.find((candidate) => candidate.name === explained.env);
    const group = promotionGroupOf(env?.promotion);
    if (!action || action.type !== 'promote' || !group?.waitForAll) return explained;
    const started = input.promotions.some(
      (record) => record.env === action.env && sameRevision(record.revision, action.revision),
    );
    if (started) return explained;
    const observed = input.groups?.get(explained.env);
    if (observed && observed.waitingFor.length === 0) return explained;
    held.add(explained.env);
    if (!observed) {
      unread.push(explained.env);
      return {
        env: explained.env,
        state: 'waiting-group' as const,
        reason: 'GroupUnread' as const,
        message: `${action.revision} is due here; the group ${group.name} waits for all its members (not read yet)`,
      };
    }
    const members = observed.waitingFor.map((member) => member.pipeline);
    const listed = observed.waitingFor.map((member) => `${member.pipeline} (${member.state})`).join(', ');
    return {
      env: explained.env,
      state: 'waiting-group' as const,
      reason: 'AwaitingGroup' as const,
      message: oneLine(
        `${action.revision} is due here; the group ${group.name} opens its pull request once every member is due, ` +
          `and waits for ${listed}`,
      ),
      waitsForMembers: members,
    };
  });
  if (held.size === 0) return decision;
  const actions = decision.actions.filter((action) => action.type !== 'promote' || !held.has(action.env));
  const needs = unread.length > 0 ? { ...decision.needs, groups: unread } : decision.needs;
  const { needs: _omitted, ...rest } = decision;
  return { ...rest, actions, environments, ...(needs ? { needs } : {}) };
}
