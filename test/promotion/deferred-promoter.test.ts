// A strategy's promoter loaded on its first call (lib/promotion/deferred-promoter.ts): nothing is loaded until a call
// needs it, concurrent first calls load it once, every call reaches it with its request and returns its answer, and a
// promoter that cannot be loaded fails each call with an error that names the strategy, without loading again. The
// runtime's promoter (test/runtime/promoter.test.ts) promotes through it on every Git host's fake.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deferredPromoter, type FullPromoter } from '../../lib/promotion/deferred-promoter.js';
import { PromotionError } from '../../lib/promotion/index.js';
import type { DeploymentRequest, PromotionRequest, PullRequestStateRequest } from '../../lib/promotion/port.js';

/** A promoter that answers each method with what it was asked, so that a test sees the request went through. */
function echoingPromoter(): FullPromoter {
  return {
    promote: (request) => Promise.resolve({ result: `promoted ${request.revision}` }),
    pullRequestState: (request) => Promise.resolve(request.url.endsWith('/7') ? 'merged' : 'open'),
    recordDeployment: (request) =>
      Promise.resolve({ id: `deployment of ${request.revision}`, sha: 'abc123', state: request.state }),
  };
}

const promotion = { revision: '1.4.2' } as PromotionRequest;
const stateRequest = { url: 'https://github.com/acme/fleet/pull/7' } as PullRequestStateRequest;
const deployment = { revision: '1.4.2', state: 'in_progress' } as DeploymentRequest;

function counting(load: () => Promise<FullPromoter>): { promoter: FullPromoter; loads: () => number } {
  let loads = 0;
  const promoter = deferredPromoter('pull-request', () => {
    loads++;
    return load();
  });
  return { promoter, loads: () => loads };
}

describe('a promoter loaded on its first call', () => {
  it('is not loaded until a call, then once for concurrent calls, each answered by it', async () => {
    const { promoter, loads } = counting(() => Promise.resolve(echoingPromoter()));
    assert.equal(loads(), 0, 'building it loads nothing');
    const [promoted, state, recorded] = await Promise.all([
      promoter.promote(promotion),
      promoter.pullRequestState(stateRequest),
      promoter.recordDeployment(deployment),
    ]);
    assert.deepEqual(promoted, { result: 'promoted 1.4.2' });
    assert.equal(state, 'merged');
    assert.deepEqual(recorded, { id: 'deployment of 1.4.2', sha: 'abc123', state: 'in_progress' });
    await promoter.promote(promotion);
    assert.equal(loads(), 1);
  });

  it('that cannot be loaded fails every call, for good, naming the strategy and why', async () => {
    const { promoter, loads } = counting(() => Promise.reject(new Error('Cannot find module yaml')));
    for (const call of [() => promoter.promote(promotion), () => promoter.pullRequestState(stateRequest)]) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof PromotionError);
        assert.equal(error.kind, 'Invalid');
        assert.equal(error.retryable, false);
        assert.match(error.message, /the pull-request promoter could not be loaded.*Cannot find module yaml/);
        return true;
      });
    }
    assert.equal(loads(), 1, 'a module that failed to load is not loaded again');
  });
});
