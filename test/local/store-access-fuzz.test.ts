// The local store's guard under generated requests: thousands of DynamoDB writes and reads (PutItem, UpdateItem,
// DeleteItem, BatchWriteItem, DeleteTable, CreateTable, Scan) with every kind of Authorization header a process
// without the key could send: none, garbage, other keys, near misses of the real key (one character off, cut, upper
// case, with a prefix or suffix, under another algorithm or header casing, in the query string instead). What holds:
// each one is answered 403 with DynamoDB's UnrecognizedClientException, the store is unchanged, and it still serves
// its owner. fast-check prints the seed of a failure.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_TABLE_NAME } from '../../lib/local/data-dir.js';
import { startLocalDynamo } from '../../lib/local/dynamo.js';
import { tempFiles } from '../support/temp-files.js';
import { scanClient } from './store-items.js';

const RUNS = 2000;

const OPERATIONS = {
  PutItem: { TableName: LOCAL_TABLE_NAME, Item: { pk: { S: 'PIPELINE#apps/web' }, sk: { S: 'APPROVAL#prod' } } },
  UpdateItem: {
    TableName: LOCAL_TABLE_NAME,
    Key: { pk: { S: 'PIPELINE#apps/web' }, sk: { S: 'DEF' } },
    UpdateExpression: 'SET approvedBy = :who',
    ExpressionAttributeValues: { ':who': { S: 'nobody' } },
  },
  DeleteItem: { TableName: LOCAL_TABLE_NAME, Key: { pk: { S: 'PIPELINE#apps/web' }, sk: { S: 'DEF' } } },
  BatchWriteItem: {
    RequestItems: {
      [LOCAL_TABLE_NAME]: [{ DeleteRequest: { Key: { pk: { S: 'PIPELINE#apps/web' }, sk: { S: 'DEF' } } } }],
    },
  },
  DeleteTable: { TableName: LOCAL_TABLE_NAME },
  CreateTable: {
    TableName: 'other',
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
    BillingMode: 'PAY_PER_REQUEST',
  },
  Scan: { TableName: LOCAL_TABLE_NAME },
} as const;

interface Attempt {
  operation: keyof typeof OPERATIONS;
  authorization?: string;
  headerName: string;
  query: string;
}

function send(endpoint: string, attempt: Attempt): Promise<{ status: number; body: string }> {
  const url = new URL(`${endpoint}/${attempt.query}`);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': `DynamoDB_20120810.${attempt.operation}`,
    'x-amz-date': '20261124T000000Z',
  };
  if (attempt.authorization !== undefined) headers[attempt.headerName] = attempt.authorization;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: 'POST', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(OPERATIONS[attempt.operation]));
  });
}

describe("the local store's guard, fuzzed", () => {
  it(`answers ${RUNS} requests without the key with 403 and writes nothing`, async (t) => {
    const root = await tempFiles(t, {});
    const dynamo = await startLocalDynamo(`${root}/data`);
    t.after(() => dynamo.stop().catch(() => undefined)); // a failed test's; the temporary directory may be gone
    const key = dynamo.accessKey;
    await dynamo.client.send(
      new PutItemCommand({ TableName: LOCAL_TABLE_NAME, Item: { pk: { S: 'PIPELINE#apps/web' }, sk: { S: 'DEF' } } }),
    );
    const before = await scanClient(dynamo.client);

    const scope = (id: string) => `${id}/20261124/local/dynamodb/aws4_request`;
    const sigv4 = (id: string) => `AWS4-HMAC-SHA256 Credential=${scope(id)}, SignedHeaders=host, Signature=00`;
    const nearMiss = fc.oneof(
      fc.nat(key.length - 1).map((i) => `${key.slice(0, i)}${key[i] === '0' ? '1' : '0'}${key.slice(i + 1)}`),
      fc.nat(key.length - 1).map((i) => key.slice(0, i)),
      fc.constant(key.toUpperCase()),
      fc.string({ minLength: 1, maxLength: 4 }).map((extra) => `${key}${extra.replace(/[/\s,]/g, 'x')}`),
      fc.string({ minLength: 1, maxLength: 4 }).map((extra) => `${extra.replace(/[/\s,]/g, 'x')}${key}`),
    );
    const otherKey = fc.oneof(
      fc.constant('local'),
      fc.stringMatching(/^[0-9a-f]{64}$/),
      fc.stringMatching(/^[A-Za-z0-9]{1,80}$/),
    );
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.stringMatching(/^[ -~]{0,120}$/),
      otherKey.map(sigv4),
      nearMiss.map(sigv4),
      fc.constant(`AWS4-HMAC-SHA512 Credential=${scope(key)}, SignedHeaders=host, Signature=00`),
      fc.constant(`AWS4-HMAC-SHA256 credential=${scope(key)}, SignedHeaders=host, Signature=00`),
      fc.constant(`AWS4-HMAC-SHA256 Credential=${key}`),
      fc.constant(`Bearer ${key}`),
    );
    const attempt: fc.Arbitrary<Attempt> = fc.record({
      operation: fc.constantFrom(...(Object.keys(OPERATIONS) as (keyof typeof OPERATIONS)[])),
      authorization,
      headerName: fc.constantFrom('authorization', 'Authorization', 'x-authorization'),
      query: fc.oneof(
        fc.constant(''),
        fc.constant(`?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${encodeURIComponent(scope(key))}`),
      ),
    });

    let refused = 0;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(attempt, async (tried) => {
        // The real key in the right header and shape is the owner's request, not an attack: not generated above.
        const { status, body } = await send(dynamo.endpoint, tried);
        assert.equal(status, 403, `${JSON.stringify(tried)} → ${status} ${body}`);
        assert.equal(
          (JSON.parse(body) as { __type?: string }).__type,
          'com.amazonaws.dynamodb.v20120810#UnrecognizedClientException',
        );
        refused++;
      }),
      { numRuns: RUNS },
    );
    t.diagnostic(`${refused} requests refused in ${Date.now() - started} ms`);

    assert.equal(refused, RUNS);
    assert.deepEqual(await scanClient(dynamo.client), before, 'the store is unchanged');
    await dynamo.stop();
  });
});
