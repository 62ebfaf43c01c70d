// Damage the check at the start cannot see, found later by a read: that request fails (HTTP 500, logged), the process
// lives on and keeps serving what it can read, and the store's record says a run found it failing, so the next start
// refuses it. Before, dynalite threw LevelDB's LEVEL_CORRUPTION from a callback and the whole process died.
import assert from 'node:assert/strict';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BatchWriteItemCommand, DescribeTableCommand, GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_TABLE_NAME } from '../../lib/local/data-dir.js';
import { startLocalDynamo } from '../../lib/local/dynamo.js';
import type { Logger } from '../../lib/logging/logger.js';
import { tempFiles } from '../support/temp-files.js';

const ITEMS = 3000;

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return {
    errors,
    debug() {},
    info() {},
    warn() {},
    error: (message, attributes) => errors.push(`${message} ${JSON.stringify(attributes)}`),
  };
}

const itemKey = (i: number) => ({
  pk: { S: `AUDIT#apps/web` },
  sk: { S: `2026-11-24T00:00:00.000Z#${String(i).padStart(6, '0')}` },
});

describe('a store failure found after the start', () => {
  it('fails that request, is logged, leaves the process serving, and makes the next start refuse', async (t) => {
    const root = await tempFiles(t, {});
    const dataDir = join(root, 'data');

    // A store with enough items for many table blocks, moved from the log into a table file by the next open.
    const filling = await startLocalDynamo(dataDir);
    for (let first = 0; first < ITEMS; first += 25) {
      const writes = Array.from({ length: 25 }, (_unused, j) => ({
        PutRequest: {
          Item: { ...itemKey(first + j), note: { S: `approved by someone for revision ${first + j}; `.repeat(4) } },
        },
      }));
      await filling.client.send(new BatchWriteItemCommand({ RequestItems: { [LOCAL_TABLE_NAME]: writes } }));
    }
    await filling.stop();
    await (await startLocalDynamo(dataDir)).stop();

    const logger = recordingLogger();
    const dynamo = await startLocalDynamo(dataDir, { logger });
    t.after(() => dynamo.stop().catch(() => undefined));
    assert.equal(dynamo.check.items, ITEMS, 'the check at the start read every item');

    // Damage a block in the middle of the largest table file, which this process has not read yet.
    const storeDir = join(dataDir, 'dynamodb');
    const tables = (await readdir(storeDir)).filter((name) => name.endsWith('.ldb'));
    const sizes = await Promise.all(tables.map(async (name) => (await stat(join(storeDir, name))).size));
    const largest = tables[sizes.indexOf(Math.max(...sizes))];
    assert.ok(largest);
    const bytes = await readFile(join(storeDir, largest));
    const middle = Math.floor(bytes.length / 2);
    for (let i = middle; i < middle + 64; i++) bytes[i] = (bytes[i] ?? 0) ^ 0xff;
    await writeFile(join(storeDir, largest), bytes);

    // A read of every item fails, as a 500 from the store...
    await assert.rejects(
      (async () => {
        let start: Record<string, never> | undefined;
        do {
          const page = await dynamo.client.send(
            new ScanCommand({ TableName: LOCAL_TABLE_NAME, ExclusiveStartKey: start }),
          );
          start = page.LastEvaluatedKey as Record<string, never> | undefined;
        } while (start);
      })(),
      (error: Error & { $metadata?: { httpStatusCode?: number } }) =>
        error.name === 'InternalServerError' && error.$metadata?.httpStatusCode === 500,
    );
    // ...it is logged...
    assert.ok(logger.errors.length > 0);
    assert.match(logger.errors[0] ?? '', /the store failed to read or write its files/);
    assert.match(logger.errors[0] ?? '', /LEVEL_CORRUPTION|[Cc]orrupt/);
    // ...and the process goes on serving what it can read.
    assert.equal(
      (await dynamo.client.send(new DescribeTableCommand({ TableName: LOCAL_TABLE_NAME }))).Table?.TableName,
      LOCAL_TABLE_NAME,
    );
    const first = await dynamo.client.send(new GetItemCommand({ TableName: LOCAL_TABLE_NAME, Key: itemKey(0) }));
    assert.equal(first.Item?.sk?.S, itemKey(0).sk.S);

    // The run found it failing: the next start refuses, saying so.
    await dynamo.stop();
    await assert.rejects(startLocalDynamo(dataDir), (error: Error) => {
      assert.match(error.message, /is damaged: a run found it failing/);
      assert.match(error.message, /pipelinectl restore/);
      return true;
    });
  });
});
