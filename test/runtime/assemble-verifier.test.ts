// The verifier as both runtimes assemble it (lib/runtime/assemble-verifier.ts): what a warm container keeps across
// its invocations (each Lambda invocation is a worker of its own) is shared by them, so that the poll messages of
// one poll handled by successive batches of one container leave their decisions to one delayed check-pipeline.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { enqueuePolls } from '../../lib/poller/poller.js';
import { assembleVerifier } from '../../lib/runtime/assemble-verifier.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { pipelineDocument, T0 } from '../verifier/world.js';
import { silentLogger } from '../../lib/logging/logger.js';

describe('assembleVerifier', () => {
  it('two workers of one container share the delayed decision of a poll', async () => {
    const store = new MemoryStore();
    const document = pipelineDocument();
    await store.applyPipeline(document, resolvePipeline(document), T0);
    const queue = new RecordingQueue();
    await enqueuePolls({ store, queue });
    // Each cluster in a message of its own, as the poller deals a larger fleet into several.
    const polls = queue
      .take()
      .flatMap(({ message }) =>
        message.type === 'poll-clusters'
          ? message.clusters.map((cluster) => ({ type: 'poll-clusters' as const, clusters: [cluster] }))
          : [],
      );
    assert.equal(polls.length, 2, 'dev and prod, one kind each');

    // No cluster is registered: every target is recorded as unreadable, a change for a pipeline never polled.
    const verifierOf = assembleVerifier({
      store,
      queue,
      secrets: new StaticSecretSource(),
      logger: silentLogger,
      now: () => T0,
      promotion: {},
    });
    for (const [index, poll] of polls.entries()) {
      await verifierOf(`invocation-${index}`)(poll, { messageId: `m${index}`, receiveCount: 1 });
    }
    const decisions = queue
      .take()
      .filter(({ message }) => message.type === 'check-pipeline' && message.cause === 'polled-change');
    assert.equal(decisions.length, 1, 'the second invocation relies on the first one’s delayed check-pipeline');
    assert.equal(decisions[0]?.delaySeconds, 5);
  });
});
