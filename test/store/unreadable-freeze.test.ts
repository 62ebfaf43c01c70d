// A stop switch in the table that this version cannot read is refused with a reason a person can act on (the field
// and zod's English message), never read as "no stop". The stop-switch schema is written against zod/mini, which
// loads no locale of its own: this checks the message still reads as it did with zod's classic API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { freezeKey } from '../../lib/store/dynamodb/freezes.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';

const pipeline = { namespace: 'flux-system', name: 'podinfo' };

describe('a stop switch the table holds in a shape this version cannot read', () => {
  let dynamo: LocalDynamo;
  let store: Store;
  let documents: DynamoDBDocumentClient;
  before(async () => {
    dynamo = await startDynalite();
    store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
    documents = DynamoDBDocumentClient.from(dynamo.client);
  });
  after(() => dynamo.stop());

  async function put(env: string, fields: Record<string, unknown>): Promise<void> {
    const key = freezeKey({ pipeline }, env);
    await documents.send(
      new PutCommand({ TableName: dynamo.tableName, Item: { ...key, entity: 'freeze', ...fields } }),
    );
  }

  const written = { reason: 'release freeze', by: 'alice', at: '2026-11-24T10:00:00.000Z' };

  it('reads one written in the shape it expects', async () => {
    await put('prod', { ...written, pipeline, env: 'prod' });
    assert.deepEqual(await store.listFreezes(), [{ scope: { pipeline }, env: 'prod', ...written }]);
  });

  it('refuses one without who set it, naming the field and what it found', async () => {
    const { by: _by, ...withoutBy } = written;
    await put('staging', { ...withoutBy, env: 'staging' });
    await assert.rejects(store.listFreezes(), {
      message:
        'the stop switch flux-system/podinfo#staging in the table cannot be read ' +
        '(by: Invalid input: expected string, received undefined)',
    });
  });

  it('refuses one whose window is not text, naming the path into it', async () => {
    await put('staging', { ...written, env: 'staging', windows: [{ from: 'Fri 18:00', to: 7, timeZone: 'UTC' }] });
    await assert.rejects(store.listFreezes(), {
      message:
        'the stop switch flux-system/podinfo#staging in the table cannot be read ' +
        '(windows.0.to: Invalid input: expected string, received number)',
    });
  });
});
