// The lead time the verifier publishes when a revision arrives in a pipeline's last environment, over hand-written
// audit trails: the same figure `pipelinectl metrics` computes for that revision, once per revision, and read from
// the newest page or so of the trail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leadTimeOfArrival } from '../../lib/observability/lead-time-of-arrival.js';
import { resolvePipeline, type Pipeline } from '../../lib/pipeline/model.js';
import type { AuditEntry, AuditLog } from '../../lib/store/port.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { PIPELINE, pipelineDocument, T0 } from '../verifier/world.js';

const MINUTE = 60_000;
const at = (minutes: number) => new Date(T0.getTime() + minutes * MINUTE).toISOString();
const TWO_ENVIRONMENTS = resolvePipeline(pipelineDocument());

function oneEnvironment(): Pipeline {
  const document = pipelineDocument();
  document.spec.environments = document.spec.environments.slice(0, 1);
  return resolvePipeline(document);
}

const passed = (env: string, revision: string, minutes: number): AuditEntry => ({
  at: at(minutes),
  pipeline: PIPELINE,
  type: 'environment-passed',
  env,
  revision,
  message: `every target of ${env} runs ${revision} and is Ready`,
});

const regressed = (env: string, minutes: number): AuditEntry => ({
  at: at(minutes),
  pipeline: PIPELINE,
  type: 'environment-regressed',
  env,
  message: `a target of ${env} failed`,
});

const noise = (minutes: number): AuditEntry => ({
  at: at(minutes),
  pipeline: PIPELINE,
  type: 'approval-requested',
  env: 'prod',
  revision: '0.0.1',
  message: 'noise',
});

/** A trail holding `entries`, and how many pages a reader asked it for. */
async function trail(entries: readonly AuditEntry[]) {
  const store = new MemoryStore();
  for (const entry of entries) await store.appendAudit(entry);
  let pages = 0;
  const audit: Pick<AuditLog, 'listAudit'> = {
    listAudit: (key, page) => {
      pages += 1;
      return store.listAudit(key, page);
    },
  };
  return { audit, pages: () => pages };
}

describe('lead time of an arrival in the last environment', () => {
  it('is the time from the first environment passing on the revision to the last one passing on it', async () => {
    const arrival = passed('prod', '6.9.2', 95);
    const { audit, pages } = await trail([
      passed('dev', '6.9.1', 0),
      passed('prod', '6.9.1', 20),
      passed('dev', '6.9.2', 60),
      arrival,
    ]);

    assert.equal(await leadTimeOfArrival(audit, TWO_ENVIRONMENTS, arrival), 35 * MINUTE);
    assert.equal(pages(), 1);
  });

  it('counts the arrival even when the trail read does not show it yet', async () => {
    const { audit } = await trail([passed('dev', '6.9.2', 0)]);
    assert.equal(await leadTimeOfArrival(audit, TWO_ENVIRONMENTS, passed('prod', '6.9.2', 12)), 12 * MINUTE);
  });

  it('is not given again when the revision passes in the last environment again after a regression', async () => {
    const again = passed('prod', '6.9.2', 90);
    const { audit } = await trail([
      passed('dev', '6.9.2', 0),
      passed('prod', '6.9.2', 30),
      regressed('prod', 60),
      again,
    ]);

    assert.equal(await leadTimeOfArrival(audit, TWO_ENVIRONMENTS, again), undefined);
  });

  it('is not given for another environment, a single-environment pipeline, or a revision whose start is unknown', async () => {
    const { audit } = await trail([passed('dev', '6.9.2', 0)]);

    assert.equal(await leadTimeOfArrival(audit, TWO_ENVIRONMENTS, passed('dev', '6.9.2', 0)), undefined);
    assert.equal(await leadTimeOfArrival(audit, oneEnvironment(), passed('dev', '6.9.2', 0)), undefined);
    assert.equal(await leadTimeOfArrival(audit, TWO_ENVIRONMENTS, passed('prod', '7.0.0', 10)), undefined);
  });

  it('stops reading at the revision before it in the first environment, however long the trail', async () => {
    const old = Array.from({ length: 450 }, (_, i) => noise(-1000 + i));
    const arrival = passed('prod', '6.9.2', 50);
    const { audit, pages } = await trail([...old, passed('dev', '6.9.1', -10), passed('dev', '6.9.2', 0), arrival]);

    assert.equal(await leadTimeOfArrival(audit, TWO_ENVIRONMENTS, arrival), 50 * MINUTE);
    assert.equal(pages(), 1);
  });

  it('looks back at most ten pages of a hundred entries for the start', async () => {
    const busy = (count: number) => Array.from({ length: count }, (_, i) => noise(1 + i / 100));
    const arrival = passed('prod', '6.9.2', 30);

    const near = await trail([passed('dev', '6.9.2', 0), ...busy(950), arrival]);
    assert.equal(await leadTimeOfArrival(near.audit, TWO_ENVIRONMENTS, arrival), 30 * MINUTE);

    const far = await trail([passed('dev', '6.9.2', 0), ...busy(1050), arrival]);
    assert.equal(await leadTimeOfArrival(far.audit, TWO_ENVIRONMENTS, arrival), undefined);
    assert.equal(far.pages(), 10);
  });
});
