// GitHub misbehaving during a promotion, through the whole loop (the strategy alone is test/promotion/github-faults):
// a 5xx outage longer than Octokit's in-call retries, a primary rate limit (403, then 429), and an outage beyond the
// promotion's retry limit. What a user checks: the record shows each failed attempt with its error (never the token)
// and when it is tried again, the audit trail tells the same story, the retry happens on its own, and in the end
// exactly one pull request exists. A promotion that failed for good waits for a person and is not retried by polls;
// the next revision is promoted as usual (docs/architecture.md, "Retries"; docs/architecture.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VersionedPromotionRecord } from '../../lib/store/index.js';
import type { FakeGitHubRequest } from '../../lib/testing/fake-github.js';
import { PIPELINE, deployed, settled, upgradeEvent } from '../loop/harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import {
  IN_CALL_RETRIES,
  OPEN_PULL_REQUEST,
  OWNER,
  REPO,
  capturingLogger,
  explain,
  releaseManifest,
  startGitHubLoop,
} from './support.js';
import { historyJson } from '../../lib/cli/operations/history.js';
import { effectMetrics } from '../../lib/observability/effect-metrics.js';
import { EmfMetrics } from '../../lib/observability/emf-metrics.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';

/** Short promotion retry delays (seconds): two retries, then the failure is for good. */
const RETRY_DELAYS = [0.2, 0.2];
/** The same with a single retry, for the fault that outlasts them all. */
const ONE_RETRY = [0.2];

type Loop = Awaited<ReturnType<typeof startGitHubLoop>>['loop'];

/** Waits for the record of (prod, revision) to satisfy `done`, and returns it. */
function recordWhen(loop: Loop, revision: string, what: string, done: (record: VersionedPromotionRecord) => boolean) {
  return waitFor(what, async () => {
    const record = await loop.store.getPromotion(PIPELINE, 'prod', revision);
    return record && done(record) ? record : undefined;
  });
}

/** The EMF lines `flush` writes to stdout, parsed: each line's root members (dimensions and metric values). */
function emfLines(flush: () => void): Record<string, unknown>[] {
  const written: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk: string | Uint8Array) => written.push(String(chunk)) > 0;
  try {
    flush();
  } finally {
    process.stdout.write = write;
  }
  const lines = written.join('').split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function auditTrail(loop: Loop): Promise<string[]> {
  const audit = await loop.store.listAudit(PIPELINE, { limit: 100 });
  return audit.items
    .filter((entry) => !isEnvironmentFact(entry))
    .reverse()
    .map((entry) => `${entry.type} ${entry.revision ?? ''}`.trim());
}

describe('GitHub faults through the whole loop', () => {
  it('a 5xx outage outlasting the in-call retries fails the attempt, which is retried after its backoff: one PR', async (t) => {
    const logger = capturingLogger();
    const { loop, github, pulls } = await startGitHubLoop(t, {
      settings: { promotionRetryDelaysSeconds: RETRY_DELAYS },
      logger,
    });
    await loop.deployEverywhere('6.9.1');

    // The branch is pushed, then opening the pull request fails on the first try and on every in-call retry.
    github.failNext(502, { route: OPEN_PULL_REQUEST, times: IN_CALL_RETRIES + 1 });
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);

    const failed = await recordWhen(loop, '6.9.2', 'the failed attempt', (record) => record.state === 'failed');
    assert.equal(failed.attempts, 1);
    assert.match(failed.error ?? '', /GitHub API POST \/api\/v3\/repos\/acme\/fleet\/pulls: 502/);
    assert.ok(!failed.error?.includes(github.token), 'the error does not carry the token');
    assert.ok(failed.retryAt, 'a retryable failure says when it is tried again');
    assert.ok(Date.parse(failed.retryAt) > Date.parse(failed.updatedAt), 'after a backoff');

    const succeeded = await recordWhen(
      loop,
      '6.9.2',
      'the retried promotion',
      (record) => record.state === 'succeeded',
    );
    await settled(loop.queue);
    assert.equal(succeeded.attempts, 2);
    assert.equal(succeeded.error, undefined, 'a success clears the error');
    assert.equal(pulls().length, 1);
    const [pull] = pulls();
    assert.equal(succeeded.result, pull?.htmlUrl);
    assert.equal(pull?.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    assert.equal(github.count(OPEN_PULL_REQUEST), IN_CALL_RETRIES + 2, 'three failed tries, then one that opened it');
    // The retry reused the branch the failed attempt had pushed: one promotion commit on top of main.
    const head = github.commit(OWNER, REPO, github.ref(OWNER, REPO, pull?.head ?? '') ?? '');
    assert.equal(head?.message, 'promoting version');
    assert.deepEqual(head?.parents, [github.ref(OWNER, REPO, 'main')]);
    assert.equal(
      github.readFile(OWNER, REPO, pull?.head ?? '', 'clusters/prod/podinfo.yaml'),
      releaseManifest('prod', '6.9.2'),
    );

    assert.deepEqual(await auditTrail(loop), [
      'promotion-started 6.9.2',
      'promotion-failed 6.9.2',
      'promotion-started 6.9.2',
      'promotion-succeeded 6.9.2',
    ]);
    assert.deepEqual(loop.queue.deadLetters(), []);
    assert.ok(logger.lines.some((line) => line.includes('promotion failed')));
    assert.deepEqual(
      logger.lines.filter((line) => line.includes(github.token)),
      [],
      'no log line carries the token',
    );
  });

  it('a primary rate limit (403, then 429) is retried only after its reset: one PR', async (t) => {
    const logger = capturingLogger();
    const { loop, github, pulls } = await startGitHubLoop(t, {
      settings: { promotionRetryDelaysSeconds: RETRY_DELAYS },
      logger,
    });
    await loop.deployEverywhere('6.9.1');
    // GitHub announces the reset in whole seconds from when it answers: note when each request arrived.
    const resetInSeconds = 2;
    const arrivedAt = new Map<FakeGitHubRequest, number>();
    github.latencyMs = (request) => {
      arrivedAt.set(request, Date.now());
      return 0;
    };
    /** The reset GitHub announced with its rate-limited answer of `status`, and the requests made after it. */
    const rateLimit = (status: number) => {
      const index = github.requests.findIndex((request) => request.status === status);
      const answered = github.requests[index];
      assert.ok(answered, `GitHub answered ${status}`);
      const reset = (Math.floor((arrivedAt.get(answered) ?? 0) / 1000) + resetInSeconds) * 1000;
      return { reset, later: github.requests.slice(index + 1).map((request) => arrivedAt.get(request) ?? 0) };
    };

    // The first attempt finds the rate limit exhausted (403).
    github.primaryRateLimitNext({ status: 403, resetInSeconds });
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    const first = await recordWhen(loop, '6.9.2', 'the rate-limited attempt', (record) => record.state === 'failed');
    assert.equal(first.attempts, 1);
    assert.match(first.error ?? '', /403 API rate limit exceeded .*\(primary rate limit\)/);
    assert.equal(first.failureKind, 'RateLimited', 'a rate limit, though GitHub answered 403');
    assert.ok(!first.error?.includes(github.token));
    // Not after the (much shorter) backoff: after the reset GitHub announced.
    assert.ok(Date.parse(first.retryAt ?? '') >= rateLimit(403).reset, `retryAt ${first.retryAt} is after the reset`);
    assert.deepEqual(pulls(), []);
    const explained = await explain(loop.store);
    assert.equal(explained.prod?.state, 'failed');
    assert.equal(explained.prod?.reason, 'RetryScheduled');
    assert.match(explained.prod?.message ?? '', /rate limit.*; retrying at /);

    // The retry meets the limit again, this time as a 429.
    github.primaryRateLimitNext({ status: 429, resetInSeconds });
    const second = await recordWhen(
      loop,
      '6.9.2',
      'the second rate-limited attempt',
      (record) => record.attempts === 2 && record.state === 'failed',
    );
    assert.match(second.error ?? '', /429 API rate limit exceeded/);
    assert.equal(second.failureKind, 'RateLimited');
    assert.ok(Date.parse(second.retryAt ?? '') >= rateLimit(429).reset);

    const succeeded = await recordWhen(
      loop,
      '6.9.2',
      'the promotion after the reset',
      (record) => record.state === 'succeeded',
    );
    await settled(loop.queue);
    assert.equal(succeeded.attempts, 3);
    assert.equal(pulls().length, 1);
    assert.equal(github.count(OPEN_PULL_REQUEST), 1);
    assert.equal(succeeded.result, pulls()[0]?.htmlUrl);
    // GitHub was left alone until each reset: nothing was sent to it in between.
    for (const status of [403, 429]) {
      const { reset, later } = rateLimit(status);
      assert.ok(later.length > 0 && later.every((at) => at >= reset), `nothing sent before the ${status} reset`);
    }
    assert.deepEqual(await auditTrail(loop), [
      'promotion-started 6.9.2',
      'promotion-failed 6.9.2',
      'promotion-started 6.9.2',
      'promotion-failed 6.9.2',
      'promotion-started 6.9.2',
      'promotion-succeeded 6.9.2',
    ]);
    assert.deepEqual(
      logger.lines.filter((line) => line.includes(github.token)),
      [],
    );
  });

  it('an outage beyond the retry limit fails the promotion for good; polls leave it alone; the next revision is promoted', async (t) => {
    const logger = capturingLogger();
    // The verifier Lambda's metrics, as it writes them (EMF on stdout).
    const metrics = new EmfMetrics({ service: 'controller-verifier' });
    const { loop, github, pulls } = await startGitHubLoop(t, {
      settings: { promotionRetryDelaysSeconds: ONE_RETRY },
      logger,
      listeners: (store) => [effectMetrics({ metrics, audit: store })],
    });
    await loop.deployEverywhere('6.9.1');

    github.failNext(503, { times: Number.MAX_SAFE_INTEGER }); // GitHub is down for longer than we retry
    loop.dev.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    const attempts = ONE_RETRY.length + 1;
    const given = await recordWhen(
      loop,
      '6.9.2',
      'the promotion to fail for good',
      (record) => record.state === 'failed' && record.retryAt === undefined,
    );
    await settled(loop.queue);
    assert.equal(given.attempts, attempts);
    assert.match(given.error ?? '', /: 503 Service Unavailable/);
    assert.ok(!given.error?.includes(github.token));
    const explained = await explain(loop.store);
    assert.equal(explained.prod?.state, 'failed');
    assert.match(
      explained.prod?.message ?? '',
      new RegExp(`failed \\(attempt ${attempts}\\).*not retried, a person must act`),
    );
    const trail = await auditTrail(loop);
    assert.deepEqual(
      trail,
      Array.from({ length: attempts }, () => ['promotion-started 6.9.2', 'promotion-failed 6.9.2']).flat(),
    );
    const lastFailure = (await loop.store.listAudit(PIPELINE)).items.find((entry) => !isEnvironmentFact(entry));
    assert.match(lastFailure?.message ?? '', /; not retried$/);
    // Why, as a machine counts it: on the record, in the trail as `history -o json` prints it, and in the metrics.
    assert.equal(given.failureKind, 'HostUnavailable');
    const failures = historyJson({ entries: (await loop.store.listAudit(PIPELINE)).items, more: false }).entries.filter(
      (entry) => entry.type === 'promotion-failed',
    );
    assert.deepEqual(
      failures.map((entry) => entry.failureKind),
      Array.from({ length: attempts }, () => 'HostUnavailable'),
    );
    const metricLines = emfLines(() => metrics.flush());
    const failedBy = (reason: string | undefined) =>
      metricLines
        .filter((line) => line.Reason === reason)
        .flatMap((line) => [line.PromotionsFailedRetrying, line.PromotionsFailedForGood].map((value) => value ?? null));
    assert.deepEqual(failedBy('HostUnavailable'), [ONE_RETRY.length, 1], 'retried once, then failed for good, by kind');
    assert.deepEqual(failedBy(undefined), [ONE_RETRY.length, 1], 'the same in the total an alarm watches');
    // A failed promotion is an outcome, not a failed message: nothing is dead-lettered, nothing loops.
    assert.deepEqual(loop.queue.deadLetters(), []);
    assert.deepEqual(pulls(), []);

    // GitHub comes back. Polls and repeated events see the failure for good and leave it to a person.
    github.clearFaults();
    await loop.poll();
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await settled(loop.queue);
    assert.equal((await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.attempts, attempts, 'not tried again');
    assert.deepEqual(pulls(), []);

    // The way forward: the next revision through dev is a new promotion, made once.
    loop.dev.put(deployed('6.9.3'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.3')), 202);
    const next = await recordWhen(loop, '6.9.3', 'the next revision', (record) => record.state === 'succeeded');
    await settled(loop.queue);
    assert.equal(next.attempts, 1);
    assert.equal(pulls().length, 1);
    assert.equal(pulls()[0]?.title, 'Promote flux-system/podinfo in prod to 6.9.3');
    assert.equal(github.count(OPEN_PULL_REQUEST), 1);
    assert.equal(
      (await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2'))?.state,
      'failed',
      'the old failure stays on record',
    );
    assert.deepEqual(
      logger.lines.filter((line) => line.includes(github.token)),
      [],
    );
  });
});
