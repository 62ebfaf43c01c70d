// Status items written before targets had phases (two booleans, prose, an optional error) still read, as a phase.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PutCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import { appKeyString, type AppKey } from '../../lib/pipeline/model.js';
import { decodeTargetStatus } from '../../lib/store/dynamodb/stored-target-status.js';
import { keys } from '../../lib/store/dynamodb/table.js';
import { createDynamoStore } from '../../lib/store/index.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';

const rows: Array<{ name: string; stored: unknown; expected: TargetStatus }> = [
  {
    name: 'healthy and settled: Ready',
    stored: { revision: '6.9.2', healthy: true, settled: true, reason: 'deployed 6.9.2 (UpgradeSucceeded)' },
    expected: {
      phase: 'Ready',
      reason: 'Unclassified',
      message: 'deployed 6.9.2 (UpgradeSucceeded)',
      revision: '6.9.2',
    },
  },
  {
    name: 'not settled: Progressing',
    stored: { revision: '6.9.1', healthy: false, settled: false, reason: 'Reconciling: Progressing' },
    expected: { phase: 'Progressing', reason: 'Unclassified', message: 'Reconciling: Progressing', revision: '6.9.1' },
  },
  {
    name: 'settled and not healthy: Failed',
    stored: { healthy: false, settled: true, reason: 'Stalled is True (RetriesExceeded)' },
    expected: { phase: 'Failed', reason: 'Unclassified', message: 'Stalled is True (RetriesExceeded)' },
  },
  {
    name: 'a read error: Unreadable, with the error as its message',
    stored: { healthy: false, settled: true, reason: 'cluster x: 403', error: 'cluster x: 403 Forbidden' },
    expected: { phase: 'Unreadable', reason: 'Unclassified', message: 'cluster x: 403 Forbidden' },
  },
  {
    name: 'the current shape reads as it is',
    stored: { phase: 'Failed', reason: 'TestsFailed', message: 'tests failed', revision: '1.0.0' },
    expected: { phase: 'Failed', reason: 'TestsFailed', message: 'tests failed', revision: '1.0.0' },
  },
  {
    name: 'neither shape: Unreadable, never a crash',
    stored: { phase: 'Sideways' },
    expected: { phase: 'Unreadable', reason: 'Unclassified', message: 'the stored status could not be read' },
  },
];

describe('decoding a stored target status', () => {
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(decodeTargetStatus(row.stored), row.expected));
  }
});

describe('a status item of the previous version in the table', () => {
  const app: AppKey = {
    cluster: { namespace: 'flux-system', name: 'prod' },
    kind: 'HelmRelease',
    namespace: 'apps',
    name: 'podinfo',
  };
  let dynamo: LocalDynamo;
  before(async () => {
    dynamo = await startDynalite();
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: dynamo.tableName,
        Item: {
          ...keys.targetStatus(app),
          entity: 'target-status',
          appKey: appKeyString(app),
          status: { revision: '6.9.1', healthy: true, settled: true, reason: 'deployed 6.9.1 (UpgradeSucceeded)' },
          fingerprint: 'old',
          observedAt: '2026-11-20T10:00:00.000Z',
          changedAt: '2026-11-20T10:00:00.000Z',
        },
      }),
    );
  });
  after(() => dynamo.stop());

  it('reads as Ready, and the next observation replaces it', async () => {
    const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
    assert.deepEqual((await store.getTargetStatus(app))?.status, {
      phase: 'Ready',
      reason: 'Unclassified',
      message: 'deployed 6.9.1 (UpgradeSucceeded)',
      revision: '6.9.1',
    });
    assert.equal((await store.getTargetStatuses([app])).get(appKeyString(app))?.status.phase, 'Ready');
    const now: TargetStatus = { phase: 'Ready', reason: 'Deployed', message: 'deployed 6.9.1', revision: '6.9.1' };
    const { changed } = await store.recordTargetStatus(app, now, new Date('2026-11-24T10:00:00.000Z'));
    assert.equal(changed, true);
    assert.deepEqual((await store.getTargetStatus(app))?.status, now);
  });
});
