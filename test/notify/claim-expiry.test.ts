// The DynamoDB claim of a notification expires with the audit retention: DynamoDB's TTL removes the item some time
// (up to days) after `expiresAt`, and until then an expired claim must not hold the news back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDynamoStore } from '../../lib/store/index.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';

describe('DynamoDB notification claims', () => {
  let dynamo: LocalDynamo;
  before(async () => (dynamo = await startDynalite()));
  after(() => dynamo.stop());

  it('hold for the retention, and no longer', async () => {
    const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName, retentionDays: 1 });
    const pipeline = { namespace: 'flux-system', name: 'podinfo' };
    const claim = (at: string) => store.claimNotification(pipeline, 'prod', '6.9.2', 'approval-waiting', new Date(at));
    assert.equal(await claim('2026-11-01T10:00:00Z'), true);
    assert.equal(await claim('2026-11-02T09:59:59Z'), false, 'within the day');
    assert.equal(await claim('2026-11-02T10:00:01Z'), true, 'expired, though not yet removed');
    assert.equal(await claim('2026-11-02T10:00:02Z'), false, 'the new claim holds');
  });
});
