// A leaf cluster failing while a promotion into it is due, one fault kind per test: no answer, 500, 401 (its token
// rotated), 403 (our RBAC removed), a LIST that never ends, and its API server gone (stopped, then back on another
// address). For each, what a user checks: the error on the target status (`pipelinectl status`) and the decision
// (`explain`); the check is redelivered and dead-lettered when the fault may pass, and not retried in a loop when a
// person must act (docs/architecture.md, "Retries"); nothing is promoted into a cluster we cannot see; and once the fault is cleared
// the next poll promotes, once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetReason } from '../../lib/flux/target-status.js';
import { appKeyString } from '../../lib/pipeline/model.js';
import type { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import type { Logger } from '../../lib/logging/logger.js';
import { deployed, LOOP_RETRY_DELAYS_SECONDS, settled, startLoop, upgradeEvent } from '../loop/harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { explain, prodApps } from './support.js';

const MAX_RECEIVES = 3;
const FOREVER = Number.MAX_SAFE_INTEGER;
const LISTS = 'helmreleases';

type Loop = Awaited<ReturnType<typeof startLoop>>;

interface ClusterFault {
  name: string;
  /** Breaks the prod cluster. */
  inject(prod: FakeKubeApi, loop: Loop): void | Promise<void>;
  /** Mends it, as a person or the cluster itself would. */
  clear(prod: FakeKubeApi, loop: Loop): void | Promise<void>;
  /** What the prod targets' status shows meanwhile: phase Unreadable, this reason and a message like this. */
  reason: TargetReason;
  error: RegExp;
  /** The fault may pass by itself: the check is redelivered, then dead-lettered. Otherwise it is not retried. */
  retried: boolean;
}

/** A failed message as the queue's consumer logged it, with the wall-clock time of the log line. */
interface LoggedFailure {
  messageId: unknown;
  receiveCount: unknown;
  redeliveryDelaySeconds: unknown;
  at: number;
}

/** A silent logger that keeps the consumer's "message handling failed" lines. */
function failureLogger(): Logger & { failures: LoggedFailure[] } {
  const failures: LoggedFailure[] = [];
  const ignore = (): void => undefined;
  return {
    failures,
    debug: ignore,
    info: ignore,
    warn: ignore,
    error: (message, attributes = {}) => {
      if (!message.startsWith('message handling failed')) return;
      const { messageId, receiveCount, redeliveryDelaySeconds } = attributes;
      failures.push({ messageId, receiveCount, redeliveryDelaySeconds, at: Date.now() });
    },
  };
}

/** Points the prod GitopsCluster's kubeconfig Secret at the server as it is now (address, token). */
function updateKubeconfig(prod: FakeKubeApi, loop: Loop): void {
  loop.secrets.set({ namespace: 'flux-system', name: 'prod-kubeconfig' }, { value: prod.kubeconfig() });
}

const FAULTS: readonly ClusterFault[] = [
  {
    name: 'gives no answer (timeout)',
    reason: 'Timeout',
    inject: (prod) => prod.hangNext({ path: LISTS, times: FOREVER }),
    clear: (prod) => prod.clearFaults(),
    error: /^cluster flux-system\/prod: no answer within 1000 ms listing helmreleases in all namespaces$/,
    retried: true,
  },
  {
    name: 'answers 500',
    reason: 'ServerError',
    inject: (prod) => prod.failNext(500, { path: LISTS, times: FOREVER }),
    clear: (prod) => prod.clearFaults(),
    error: /^cluster flux-system\/prod: 500 Internal Server Error listing helmreleases .*: Internal error occurred/,
    retried: true,
  },
  {
    name: 'answers 401 (its token was rotated)',
    reason: 'Unauthorized',
    inject: (prod) => void prod.rotateToken(),
    clear: updateKubeconfig,
    error: /^cluster flux-system\/prod: 401 Unauthorized listing helmreleases/,
    retried: false,
  },
  {
    name: 'answers 403 (our read access was removed)',
    reason: 'Forbidden',
    inject: (prod) => prod.setUser(prod.token, { name: 'flux-deploy-verifier', namespaces: [] }),
    clear: (prod) => prod.setUser(prod.token, { name: 'flux-deploy-verifier' }),
    error:
      /^cluster flux-system\/prod: 403 Forbidden listing helmreleases in apps(-eu)?: .*cannot list resource "helmreleases"/,
    retried: false,
  },
  {
    name: 'never ends a LIST (a new continue token with every page)',
    reason: 'AnswerTooLarge',
    inject: (prod) => prod.endlessLists({ itemsPerPage: 1 }),
    clear: (prod) => prod.endlessLists(false),
    error:
      /^cluster flux-system\/prod: more than 100 pages listing helmreleases in all namespaces, over the reader's bounds/,
    retried: false,
  },
  {
    name: 'disappears (its API server stops, then returns at another address)',
    reason: 'Unreachable',
    inject: (prod) => prod.stop(),
    clear: async (prod, loop) => {
      await prod.start();
      updateKubeconfig(prod, loop);
    },
    error: /^cluster flux-system\/prod: cannot reach https:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\) listing helmreleases/,
    retried: true,
  },
];

describe('a leaf cluster that fails while a promotion into it is due', () => {
  for (const fault of FAULTS) {
    it(`prod ${fault.name}: recorded, ${fault.retried ? 'retried then dead-lettered' : 'not retried'}, nothing promoted; promoted once it is mended`, async (t) => {
      const logger = failureLogger();
      const loop = await startLoop(t, { maxReceiveCount: MAX_RECEIVES, logger });
      await loop.deployEverywhere('6.9.1');
      const token = loop.prod.token;

      // The scheduled poll meets the fault.
      await fault.inject(loop.prod, loop);
      await loop.poll();
      if (fault.retried) {
        const dead = await waitFor('the poll of prod to be dead-lettered', () =>
          loop.queue.deadLetters().find((letter) => /"poll".*"prod"/.test(letter.body)),
        );
        assert.equal(dead.receiveCount, MAX_RECEIVES, 'delivered again until the maximum receive count');
        // With backoff: each failure hid the poll for a longer delay, and it came back no sooner than that.
        const failures = logger.failures.filter((failure) => failure.messageId === dead.messageId);
        assert.deepEqual(
          failures.map(({ receiveCount, redeliveryDelaySeconds }) => ({ receiveCount, redeliveryDelaySeconds })),
          Array.from({ length: MAX_RECEIVES }, (_, i) => ({
            receiveCount: i + 1,
            redeliveryDelaySeconds: LOOP_RETRY_DELAYS_SECONDS[i],
          })),
        );
        const comebacks = [...failures.slice(1).map((failure) => failure.at), dead.at];
        failures.forEach((failure, i) => {
          const waitedMs = (comebacks[i] ?? 0) - failure.at;
          const delayMs = (LOOP_RETRY_DELAYS_SECONDS[i] ?? 0) * 1000;
          assert.ok(waitedMs >= delayMs, `back ${waitedMs} ms after failure ${i + 1}, not before its ${delayMs} ms`);
        });
      }
      await settled(loop.queue);
      if (!fault.retried) assert.deepEqual(loop.queue.deadLetters(), [], 'handled once, not retried in a loop');
      assert.equal(loop.queue.deadLetters().length, fault.retried ? 1 : 0, 'only the poll of prod failed');

      const statuses = await loop.store.getTargetStatuses(prodApps);
      for (const app of prodApps) {
        const observed = statuses.get(appKeyString(app));
        assert.equal(observed?.status.phase, 'Unreadable', 'the PHASE column of `pipelinectl status`');
        assert.equal(observed?.status.reason, fault.reason);
        assert.match(observed?.status.message ?? '', fault.error, `the status of ${app.namespace} on prod`);
        assert.ok(!observed?.status.message.includes(token), 'the error does not carry the token');
      }

      // Dev moves on meanwhile: nothing is promoted into an environment we cannot see.
      loop.dev.put(deployed('6.9.2'));
      assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
      await settled(loop.queue);
      assert.deepEqual(loop.promoter.promotions(), []);
      const blocked = await explain(loop.store);
      assert.equal(blocked.dev?.state, 'source');
      assert.equal(blocked.prod?.state, 'unknown');
      assert.equal(blocked.prod?.reason, 'TargetsUnknown');
      assert.match(
        blocked.prod?.message ?? '',
        /^cannot read target flux-system\/prod apps: cluster flux-system\/prod: /,
      );

      // Mended; the next poll reads prod again and promotes, once.
      await fault.clear(loop.prod, loop);
      await loop.poll();
      await waitFor('the promotion', () => loop.promoter.promotions().length > 0);
      await settled(loop.queue);
      assert.deepEqual(loop.promoter.promotions(), [
        { pipeline: 'flux-system/podinfo', env: 'prod', revision: '6.9.2', calls: 1 },
      ]);
      const recovered = await loop.store.getTargetStatuses(prodApps);
      for (const app of prodApps) {
        const observed = recovered.get(appKeyString(app));
        assert.deepEqual([observed?.status.phase, observed?.status.reason], ['Ready', 'Deployed']);
        assert.equal(observed?.status.revision, '6.9.1', 'prod runs 6.9.1 until the promotion is rolled out');
      }
      assert.equal((await explain(loop.store)).prod?.state, 'promoted');
    });
  }
});
