// The `verify` effect on its own, over the in-memory store: which Secrets it reads, what it writes and sends after an
// evaluation (a re-check while undecided, an audit entry and an immediate re-decision once decided), a decided record
// left alone, and a write lost to another verifier folded again. The checks here name Secrets that do not exist, so
// they are evaluated without a request: `SecretMissing`, inconclusive.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import type { VerificationRecord } from '../../lib/decision/types.js';
import { silentLogger } from '../../lib/logging/logger.js';
import { resolvePipeline, type ObjectKey, type Pipeline } from '../../lib/pipeline/model.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { ScriptedClusters } from '../../lib/testing/scripted-clusters.js';
import { verify } from '../../lib/verifier/effects/verify.js';
import type { VerifierDeps } from '../../lib/verifier/index.js';
import { PIPELINE, T0 } from './world.js';

const ACTION = { type: 'verify', env: 'staging', revision: '6.9.2' } as const;

function pipelineWith(options: { onInconclusive?: 'wait' | 'fail' } = {}): Pipeline {
  const target = (name: string) => ({ namespace: 'apps', clusterRef: { kind: 'GitopsCluster' as const, name } });
  const document: PipelineDocument = {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { ...PIPELINE },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        {
          name: 'staging',
          targets: [target('staging')],
          verification: {
            for: '10m',
            ...options,
            checks: [
              { name: 'smoke', http: { url: 'https://staging.acme.example/healthz', secretRef: { name: 'smoke' } } },
              {
                name: 'errors',
                prometheus: {
                  url: 'https://prometheus.acme.example',
                  query: 'up',
                  above: 0,
                  auth: { secretRef: { name: 'prometheus-basic' } },
                },
              },
            ],
          },
        },
        { name: 'prod', targets: [target('prod')] },
      ],
      promotion: { strategy: { notification: {} } },
    },
  };
  return resolvePipeline(document);
}

/** A SecretSource that tells which Secrets were asked for. */
class CountingSecrets extends StaticSecretSource {
  readonly asked: string[] = [];
  override getSecret(key: ObjectKey) {
    this.asked.push(`${key.namespace}/${key.name}`);
    return super.getSecret(key);
  }
}

function world(store = new MemoryStore()) {
  const queue = new RecordingQueue();
  const secrets = new CountingSecrets([
    { key: { namespace: 'flux-system', name: 'unrelated' }, values: { token: 't' } },
  ]);
  const deps: VerifierDeps = {
    store,
    queue,
    clusters: new ScriptedClusters(),
    promoter: new RecordingPromoter(),
    logger: silentLogger,
    now: () => T0,
    workerId: 'verify-test',
    verification: { secrets },
  };
  return { store, queue, secrets, deps };
}

const auditTypes = async (store: MemoryStore) => (await store.listAudit(PIPELINE)).items.map((entry) => entry.type);

describe('the verify effect', () => {
  it('reads only the Secrets its checks name, in the pipeline’s namespace, and re-checks while undecided', async () => {
    const { store, queue, secrets, deps } = world();
    const run = await verify(pipelineWith(), ACTION, new Map(), deps);
    assert.deepEqual(secrets.asked.sort(), ['flux-system/prometheus-basic', 'flux-system/smoke']);
    assert.equal(run.written, true);
    const [record] = await store.listVerifications(PIPELINE);
    assert.deepEqual(
      record?.results.map(({ name, verdict, reason }) => `${name} ${verdict} ${reason}`),
      ['smoke inconclusive SecretMissing', 'errors inconclusive SecretMissing'],
    );
    assert.equal(record?.outcome, undefined);
    assert.deepEqual(queue.take(), [
      {
        message: { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false },
        delaySeconds: 61,
      },
    ]);
    assert.deepEqual(await auditTypes(store), [], 'nothing decided, nothing audited');
  });

  it('audits a decided failure once and re-decides at once; a decided record is left alone', async () => {
    const { store, queue, deps } = world();
    const pipeline = pipelineWith({ onInconclusive: 'fail' });
    await verify(pipeline, ACTION, new Map(), deps);
    assert.equal((await store.listVerifications(PIPELINE))[0]?.outcome, 'failed');
    assert.deepEqual(await auditTypes(store), ['verification-failed']);
    assert.deepEqual(queue.take(), [
      { message: { type: 'check-pipeline', pipeline: PIPELINE, cause: 'retry', readTargets: false } },
    ]);

    const again = await verify(pipeline, ACTION, new Map(), deps);
    assert.deepEqual(again, { written: false });
    assert.equal((await store.listVerifications(PIPELINE))[0]?.version, 1);
    assert.deepEqual(await auditTypes(store), ['verification-failed']);
    assert.deepEqual(queue.take(), []);
  });

  it('folds again over the record another verifier wrote first', async () => {
    /** A store in which another verifier writes its evaluation just before this one's first write. */
    class RacedStore extends MemoryStore {
      raced = false;
      override async putVerification(pipeline: ObjectKey, record: VerificationRecord, expectedVersion: number) {
        if (!this.raced) {
          this.raced = true;
          const other = { ...record, startedAt: '2026-11-01T09:59:00.000Z', checkedAt: '2026-11-01T09:59:00.000Z' };
          assert.equal(await super.putVerification(pipeline, other, expectedVersion), true);
        }
        return super.putVerification(pipeline, record, expectedVersion);
      }
    }
    const { store, deps } = world(new RacedStore());
    const run = await verify(pipelineWith(), ACTION, new Map(), deps);
    assert.equal(run.written, true);
    const [record] = await store.listVerifications(PIPELINE);
    assert.equal(record?.version, 2, 'written over the other’s version, not over it');
    assert.equal(record?.startedAt, '2026-11-01T09:59:00.000Z', 'the other’s evaluation kept in the fold');
  });
});
