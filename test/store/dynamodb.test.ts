// The store contract against dynalite, in process: a fresh server and table per suite; and what the poll digests'
// layout costs in read units, which only DynamoDB bills.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { pollGroupOf } from '../../lib/pipeline/model.js';
import { createDynamoStore } from '../../lib/store/index.js';
import { conditionHeld, keys, unlessConditionFailed } from '../../lib/store/dynamodb/table.js';
import { startDynalite } from '../support/dynalite.js';
import { countCapacityUnits, noCapacityUnits } from '../../bench/dynamo.js';
import { storeContract } from './store-contract.js';

const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan'];

storeContract('DynamoDB store on dynalite', async () => {
  const dynamo = await startDynalite();
  const documents = DynamoDBDocumentClient.from(dynamo.client);
  return {
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    writes: () => dynamo.writes(),
    reads: () => READ_OPERATIONS.reduce((sum, name) => sum + (dynamo.operations.get(name) ?? 0), 0),
    resetCounts: () => dynamo.resetCounts(),
    overwriteLease: async (pipeline, env, revision, leaseExpiresAt) => {
      await documents.send(
        new UpdateCommand({
          TableName: dynamo.tableName,
          Key: keys.promotion(pipeline, env, revision),
          UpdateExpression: 'SET leaseExpiresAt = :lease',
          ExpressionAttributeValues: { ':lease': leaseExpiresAt },
        }),
      );
    },
    stop: () => dynamo.stop(),
  };
});

describe('conditional writes on DynamoDB', () => {
  it('tells a condition that did not hold from a write that failed', async (t) => {
    const dynamo = await startDynalite();
    t.after(() => dynamo.stop());
    const documents = DynamoDBDocumentClient.from(dynamo.client);
    const putNew = (tableName: string) =>
      documents.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: 'item', sk: 'item', n: 1 },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    assert.equal(await conditionHeld(putNew(dynamo.tableName)), true);
    assert.equal(await conditionHeld(putNew(dynamo.tableName)), false);
    assert.equal(await unlessConditionFailed(putNew(dynamo.tableName)), undefined);
    await assert.rejects(conditionHeld(putNew('no-such-table')), { name: 'ResourceNotFoundException' });
    await assert.rejects(unlessConditionFailed(putNew('no-such-table')), { name: 'ResourceNotFoundException' });
  });
});

describe('poll digests on DynamoDB', () => {
  it("reads a poll message's 25 clusters of one group, both kinds, for under 2 read units", async (t) => {
    const dynamo = await startDynalite();
    t.after(() => dynamo.stop());
    const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
    let units = noCapacityUnits();
    countCapacityUnits(dynamo.client, () => units);
    const clusters = Array.from({ length: 1_000 }, (_, index) => ({
      namespace: 'flux-system',
      name: `cluster-${index}`,
    }))
      .filter((cluster) => pollGroupOf(cluster) === 5)
      .slice(0, 25);
    for (const cluster of clusters) {
      for (const kind of ['HelmRelease', 'Kustomization'] as const) {
        await store.putPollDigest(
          cluster,
          kind,
          { generation: 12, namespaces: ['apps'], digest: 'x'.repeat(43), writtenAt: '2026-11-30T10:00:00.000Z' },
          0,
        );
      }
    }
    units = noCapacityUnits();
    const read = await store.getPollDigests(clusters);
    assert.equal(read.size, 25);
    // An item per cluster, as before the poll groups, cost half a unit each: 12.5.
    const { readUnits } = units;
    assert.ok(readUnits > 0 && readUnits <= 2, `${readUnits} read units`);
  });
});
