// An environment's state in plain words, the one wording `status`, `explain`, the dashboard and `-o json`
// (`stateText`) share: the state names are for machines and scripts, these for a person at a glance. docs/cli.md
// ("Environment states") lists both.
import type { EnvironmentExplanation, EnvironmentState } from '../decision/index.js';

/** The words for each state; `not-reached` names what it waits for when it can (environmentStateText). */
export const ENVIRONMENT_STATE_WORDS: Readonly<Record<EnvironmentState, string>> = {
  source: 'source',
  passed: 'passed',
  soaking: 'soaking',
  'in-progress': 'rolling out',
  verifying: 'verifying',
  ahead: 'ahead',
  unknown: 'unknown',
  suspended: 'suspended',
  promoting: 'promoting',
  promoted: 'promoted, waiting for targets',
  failed: 'promotion failed',
  'waiting-approval': 'waits for approval',
  'no-strategy': 'no promotion configured',
  frozen: 'frozen',
  rejected: 'rejected',
  'rolling-back': 'rolling back',
  'not-reached': 'not reached',
};

/** An environment's state in words: `waits for staging` for one that waits for another, else the state's words. */
export function environmentStateText(env: Pick<EnvironmentExplanation, 'state' | 'waitsFor'>): string {
  if (env.state === 'not-reached' && env.waitsFor !== undefined) return `waits for ${env.waitsFor}`;
  return ENVIRONMENT_STATE_WORDS[env.state];
}
