// Deciding with what the decision asks for (Decision.needs): the stop switches, read only when a promotion would
// start, and the revisions an environment passed on, read from the audit trail only when a rollback is due. A quiet
// pipeline, the common case, reads neither, so the gates cost nothing per event (docs/architecture.md, "Reads").
import { decide, type Decision, type DecisionInput } from '../decision/index.js';
import { pipelineKeyOf, type ObjectKey } from '../pipeline/model.js';
import { walkAuditTrail } from '../store/index.js';
import type { Store } from '../store/port.js';
import { decisionInputOf, type PipelineState } from './pipeline-state.js';
import { readGroupObservations, type GroupReads } from './release-train.js';

export type DecisionReads = Pick<Store, 'listFreezes' | 'listAudit'> & GroupReads;

/** Revisions kept per environment: the failed one and those before it; the rollback takes the first other one. */
const PASSED_PER_ENV = 3;
const PAGE_SIZE = 50;
/** Pages of the trail read at most; within the store's retention this covers a busy pipeline's weeks. */
const MAX_PAGES = 20;

/**
 * Decides for a pipeline's state at `now`, reading what the decision needs and deciding again. Each read can make
 * the next decision ask for another (a freeze that holds a promotion may uncover a rollback), so this repeats until
 * the decision is whole; there are only three kinds of read, so at most four decisions.
 */
export async function decideWithReads(reads: DecisionReads, state: PipelineState, now: Date): Promise<Decision> {
  let input: DecisionInput = decisionInputOf(state, now);
  let decision = decide(input);
  for (let round = 0; round < 3 && decision.needs; round += 1) {
    const { needs } = decision;
    if (needs.freezes && input.freezes === undefined) input = { ...input, freezes: await reads.listFreezes() };
    if (needs.lastPassed && needs.lastPassed.some((env) => !input.lastPassed?.has(env))) {
      const key = pipelineKeyOf(state.stored.pipeline);
      input = { ...input, lastPassed: await passedRevisions(reads, key, needs.lastPassed) };
    }
    if (needs.groups && needs.groups.some((env) => !input.groups?.has(env))) {
      if (input.freezes === undefined) input = { ...input, freezes: await reads.listFreezes() };
      const groups = await readGroupObservations(reads, input.pipeline, needs.groups, input.freezes, now);
      input = { ...input, groups: new Map([...(input.groups ?? []), ...groups]) };
    }
    decision = decide(input);
  }
  return decision;
}

/** The revisions each of `envs` passed on, newest first, from the trail's `environment-passed` facts. */
export async function passedRevisions(
  reads: Pick<Store, 'listAudit'>,
  pipeline: ObjectKey,
  envs: readonly string[],
): Promise<Map<string, string[]>> {
  const passed = new Map<string, string[]>(envs.map((env) => [env, []]));
  const full = () => [...passed.values()].every((revisions) => revisions.length >= PASSED_PER_ENV);
  await walkAuditTrail(reads, pipeline, { pageSize: PAGE_SIZE, maxPages: MAX_PAGES }, (entry) => {
    if (entry.type !== 'environment-passed' || entry.env === undefined || entry.revision === undefined) {
      return 'continue';
    }
    const revisions = passed.get(entry.env);
    if (revisions && revisions.length < PASSED_PER_ENV && !revisions.includes(entry.revision)) {
      revisions.push(entry.revision);
    }
    return full() ? 'stop' : 'continue';
  });
  return passed;
}
