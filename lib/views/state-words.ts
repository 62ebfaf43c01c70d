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
  'pull-request-open': 'pull request open',
  'pull-request-closed': 'pull request closed without merging',
  // The revision is in the repository (merged, or sent): the targets are taking it, as they are in `in-progress`.
  promoted: 'rolling out',
  failed: 'promotion failed',
  'waiting-approval': 'waits for approval',
  'waiting-group': 'waits for its group',
  'no-strategy': 'no promotion configured',
  frozen: 'frozen',
  rejected: 'rejected',
  'rolling-back': 'rolling back',
  'not-reached': 'not reached',
};

/**
 * An environment's state in words: `waits for staging` for one that waits for another, `verification failed` for
 * one whose checks failed it (not its promotion), else the state's words.
 */
export function environmentStateText(
  env: Pick<EnvironmentExplanation, 'state' | 'waitsFor'> & Partial<Pick<EnvironmentExplanation, 'reason'>>,
): string {
  if (env.state === 'not-reached' && env.waitsFor !== undefined) return `waits for ${env.waitsFor}`;
  if (env.state === 'failed' && (env.reason === 'VerificationFailed' || env.reason === 'VerificationInconclusive')) {
    return 'verification failed';
  }
  return ENVIRONMENT_STATE_WORDS[env.state];
}

/** What each state means, in one line: the dashboard's legend of the words above. */
export const ENVIRONMENT_STATE_MEANINGS: Readonly<Record<EnvironmentState, string>> = {
  source: 'The first environment: the revision its targets run is the candidate promoted to the others.',
  passed: 'Every target runs the candidate and is healthy.',
  soaking:
    "Every target runs the candidate and is healthy, not yet for the environment's soak: nothing after it moves.",
  'in-progress': 'Some targets run the candidate, not all of them healthy on it yet.',
  verifying:
    'Every target runs the candidate and is Ready; its verification checks are evaluated, or must hold a while longer.',
  ahead: 'A target runs a newer revision than the candidate: it is never downgraded.',
  unknown: "A target's status is not known (never read, absent or unreadable): nothing is decided.",
  suspended: 'A target is suspended in Flux: nothing is promoted to or past it.',
  promoting: 'A promotion of the candidate is being made now.',
  'pull-request-open': 'The pull request promoting the candidate is open: it waits for someone to merge it.',
  'pull-request-closed':
    'The pull request was closed without merging: nothing is promoted here until a newer candidate, or a retry.',
  promoted: 'The revision is in the repository (merged, or sent): the targets do not run it yet.',
  failed:
    'The promotion failed (tried again when a retry is due, else a person must fix it), or its verification checks failed.',
  'waiting-approval': 'A person must approve the candidate, or reject it, before it is promoted here.',
  'waiting-group':
    "The candidate is due, but its release train waits for the group's other members, named in the message.",
  'no-strategy': 'No promotion strategy applies to the environment: nothing is promoted into it.',
  frozen: 'A freeze window or a stop switch holds promotions into it.',
  rejected: 'A person rejected the candidate: nothing is promoted here until a newer one arrives.',
  'rolling-back': 'Its targets failed on a promoted revision: a rollback pull request is due, made or failed.',
  'not-reached':
    'An earlier environment, named in the words (waits for staging), holds it back: nothing is wrong here.',
};

/** The states that wait for a person (an approval, a failure to look at): the fleet page lists their pipelines first. */
export const NEEDS_A_PERSON: Readonly<Record<EnvironmentState, boolean>> = {
  source: false,
  passed: false,
  soaking: false,
  'in-progress': false,
  verifying: false,
  ahead: false,
  unknown: false,
  suspended: false,
  promoting: false,
  'pull-request-open': false,
  'pull-request-closed': true,
  promoted: false,
  failed: true,
  'waiting-approval': true,
  'waiting-group': false,
  'no-strategy': false,
  frozen: false,
  rejected: true,
  'rolling-back': true,
  'not-reached': false,
};
