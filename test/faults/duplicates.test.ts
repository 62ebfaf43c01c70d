// The same work arriving many times, through the whole loop with the real GitHub strategy: a flood of duplicate
// signed events for one rollout, and several verifier instances racing on one pipeline. What a user would see must
// be the same as for a single event: one pull request, one succeeded promotion record (one attempt), one pair of
// audit entries, and no dead letter. Exactly-once is the store's conditional writes, not luck of timing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueueMessage } from '../../lib/queue/index.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { PIPELINE, deployed, settled, upgradeEvent } from '../loop/harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { OPEN_PULL_REQUEST, OWNER, REPO, devApp, releaseManifest, startGitHubLoop } from './support.js';
import { isEnvironmentFact } from '../../lib/verifier/environment-facts.js';

const EVENTS = 100;
const CONCURRENT_EVENTS = 20;

describe('duplicates through the whole loop', () => {
  it(`${EVENTS} duplicate signed events for one rollout open exactly one pull request`, async (t) => {
    const { loop, github, pulls } = await startGitHubLoop(t);
    await loop.deployEverywhere('6.9.1');
    loop.dev.resetRequests();

    // Flux retries deliveries it thinks failed, and several controllers report the same rollout: 100 copies of
    // the same signed event, 20 at a time. The first half piles up while the verifier is throttled, so that each
    // batch it then takes holds ten copies handled in parallel; the second half arrives while those are acted on.
    loop.dev.put(deployed('6.9.2'));
    const body = upgradeEvent('6.9.2');
    const answers: number[] = [];
    const sendConcurrently = async () => {
      const sent = await Promise.all(Array.from({ length: CONCURRENT_EVENTS }, () => loop.sendEvent('dev', body)));
      answers.push(...sent);
    };
    await loop.pauseVerifier();
    while (answers.length < EVENTS / 2) await sendConcurrently();
    loop.resumeVerifier();
    while (answers.length < EVENTS) await sendConcurrently();
    assert.deepEqual(answers, Array<number>(EVENTS).fill(202), 'every event is accepted');
    await settled(loop.queue);

    // Nothing lost: every accepted event was acted on (the dev HelmRelease read for it).
    assert.ok(loop.dev.count('get') >= EVENTS, `${loop.dev.count('get')} reads of dev for ${EVENTS} events`);
    // Nothing doubled: one pull request, opened by one request to GitHub.
    assert.equal(pulls().length, 1);
    const [pull] = pulls();
    assert.equal(pull?.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    assert.equal(
      github.readFile(OWNER, REPO, pull?.head ?? '', 'clusters/prod/podinfo.yaml'),
      releaseManifest('prod', '6.9.2'),
    );
    assert.equal(github.count(OPEN_PULL_REQUEST), 1, 'the strategy ran once');

    const records = await loop.store.listPromotions(PIPELINE);
    assert.deepEqual(
      records.map(({ env, revision, state, attempts, result }) => ({ env, revision, state, attempts, result })),
      [{ env: 'prod', revision: '6.9.2', state: 'succeeded', attempts: 1, result: pull?.htmlUrl }],
    );
    const audit = await loop.store.listAudit(PIPELINE);
    assert.deepEqual(
      audit.items
        .filter((entry) => !isEnvironmentFact(entry))
        .map((entry) => entry.type)
        .reverse(),
      ['promotion-started', 'promotion-succeeded'],
    );
    assert.deepEqual(loop.queue.deadLetters(), []);
  });

  it('three verifier instances fed the same events and polls at once open exactly one pull request', async (t) => {
    const { loop, github, pulls } = await startGitHubLoop(t);
    await loop.deployEverywhere('6.9.1');
    // Three verifiers on one store, each with its own queue, cluster clients and GitHub client, as three Lambda
    // instances would be. GitHub answers slowly, so an attempt is still running when the others decide.
    const workers = {
      'loop-test': loop.queue,
      'verifier-2': loop.startWorker('verifier-2'),
      'verifier-3': loop.startWorker('verifier-3'),
    };
    github.latencyMs = 20;
    loop.dev.resetRequests();

    loop.dev.put(deployed('6.9.2'));
    const checkDev: QueueMessage = { type: 'check-app', app: devApp, cause: 'event', attempt: 0 };
    await Promise.all(
      Object.values(workers).flatMap((queue) => [
        ...Array.from({ length: 5 }, () => queue.send(checkDev)),
        enqueuePolls({ store: loop.store, queue }),
      ]),
    );
    const record = await waitFor('the promotion record to finish', async () => {
      const found = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
      return found && found.state !== 'pending' && found.state !== 'in-progress' ? found : undefined;
    });
    for (const queue of Object.values(workers)) await settled(queue);

    // Every worker did the work it was given: five events and one poll of dev each.
    assert.ok(loop.dev.count() >= 3 * 6, `${loop.dev.count()} requests to dev`);
    assert.equal(pulls().length, 1);
    assert.equal(pulls()[0]?.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    assert.equal(github.count(OPEN_PULL_REQUEST), 1, 'only the worker holding the record ran the strategy');
    assert.equal(record.state, 'succeeded');
    assert.equal(record.attempts, 1);
    assert.equal(record.result, pulls()[0]?.htmlUrl);
    assert.equal((await loop.store.listPromotions(PIPELINE)).length, 1);

    const audit = (await loop.store.listAudit(PIPELINE)).items.filter((entry) => !isEnvironmentFact(entry)).reverse();
    assert.deepEqual(
      audit.map((entry) => entry.type),
      ['promotion-started', 'promotion-succeeded'],
    );
    assert.deepEqual(
      audit.map((entry) => entry.actor),
      ['pipeline-controller', 'pipeline-controller'],
      'the controller, whichever worker held the record',
    );
    for (const queue of Object.values(workers)) assert.deepEqual(queue.deadLetters(), []);
  });
});
