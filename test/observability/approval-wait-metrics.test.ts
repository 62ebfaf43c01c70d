// The fleet's waiting approvals as the poller records them on each run: how many markers wait for a person and how
// long the oldest has waited, each pipeline read once; an approved marker no longer waits; a failed read is logged
// and records nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordApprovalWait } from '../../lib/observability/approval-wait-metrics.js';
import { MemoryMetrics } from '../../lib/observability/memory-metrics.js';
import { resolvePipeline, type ObjectKey } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { PIPELINE, pipelineDocument, T0 } from '../verifier/world.js';

const OTHER: ObjectKey = { namespace: 'flux-system', name: 'checkout' };
const QUIET: ObjectKey = { namespace: 'flux-system', name: 'quiet' };
const MINUTE = 60_000;
const later = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE);

async function fleet() {
  const store = new MemoryStore();
  for (const key of [PIPELINE, OTHER, QUIET]) {
    const document = pipelineDocument({ manual: true });
    document.metadata = { ...key };
    await store.applyPipeline(document, resolvePipeline(document), T0);
  }
  const warnings: string[] = [];
  return { store, warnings, logger: { warn: (message: string) => void warnings.push(message) } };
}

describe('approvals waiting', () => {
  it('counts the markers waiting over the fleet and the age of the oldest; an approved one does not wait', async () => {
    const { store, logger } = await fleet();
    await store.requestApproval(PIPELINE, 'prod', '6.9.2', T0);
    await store.requestApproval(OTHER, 'prod', '2.0.0', later(30));
    await store.requestApproval(OTHER, 'dev', '2.0.0', later(40));
    await store.approve(OTHER, 'dev', '2.0.0', 'alice', later(41));
    const metrics = new MemoryMetrics();

    // The poller lists a pipeline once per (cluster, kind) it uses: each is read once all the same.
    const wait = await recordApprovalWait({ store, metrics, logger, now: later(90) }, [
      PIPELINE,
      OTHER,
      PIPELINE,
      QUIET,
    ]);

    assert.deepEqual(wait, { waiting: 2, oldestAgeSeconds: 90 * 60 });
    assert.deepEqual(metrics.values('ApprovalsWaiting'), [2]);
    assert.deepEqual(metrics.values('OldestApprovalAge'), [90 * 60]);
  });

  it('records zero and zero when nothing waits, so the graph shows it rather than a gap', async () => {
    const { store, logger } = await fleet();
    const metrics = new MemoryMetrics();

    await recordApprovalWait({ store, metrics, logger, now: later(5) }, [PIPELINE, OTHER]);

    assert.deepEqual(metrics.values('ApprovalsWaiting'), [0]);
    assert.deepEqual(metrics.values('OldestApprovalAge'), [0]);
  });

  it('records nothing and warns when the markers cannot be read', async () => {
    const { warnings, logger } = await fleet();
    const metrics = new MemoryMetrics();
    const failing = { listApprovals: () => Promise.reject(new Error('ThrottlingException')) };

    const wait = await recordApprovalWait({ store: failing, metrics, logger, now: T0 }, [PIPELINE]);

    assert.equal(wait, undefined);
    assert.deepEqual(metrics.points(), []);
    assert.equal(warnings.length, 1);
  });
});
