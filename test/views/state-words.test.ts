// The one wording of an environment's state (lib/views/state-words.ts): what status, explain, the dashboard and
// `stateText` in -o json say.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { environmentStateText } from '../../lib/views/state-words.js';

describe('environmentStateText', () => {
  const rows: [Parameters<typeof environmentStateText>[0], string][] = [
    [{ state: 'not-reached', reason: 'StoppedEarlier', waitsFor: 'staging' }, 'waits for staging'],
    [{ state: 'not-reached', reason: 'StoppedEarlier' }, 'not reached'],
    [{ state: 'failed', reason: 'FailedForGood' }, 'promotion failed'],
    [{ state: 'failed', reason: 'VerificationFailed' }, 'verification failed'],
    [{ state: 'failed', reason: 'VerificationInconclusive' }, 'verification failed'],
    [{ state: 'pull-request-open', reason: 'PullRequestOpen' }, 'pull request open'],
    [{ state: 'promoted', reason: 'PullRequestMerged' }, 'rolling out'],
    [{ state: 'verifying', reason: 'VerificationHolding' }, 'verifying'],
  ];
  for (const [env, words] of rows) {
    it(`${env.state}/${env.reason ?? '-'}${env.waitsFor ? ` waiting for ${env.waitsFor}` : ''}: ${words}`, () =>
      assert.equal(environmentStateText(env), words));
  }
});
