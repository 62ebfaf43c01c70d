// A table or queue the user brings (`table`, `queue` props), checked at synth time where the app defines it: what the
// functions and the event source rely on. An imported table or queue cannot be looked at; infra/README.md says what
// it must be.
import { Stack, type Duration } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { TABLE_SCHEMA } from '../lib/store/index.js';

/** SQS's visibility timeout when a queue does not set one. */
const SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;

interface KeyElement {
  attributeName: string;
  keyType: string;
}

/** What is wrong with the user's table for lib/store, one line each (none for an imported table). */
export function tableProblems(table: dynamodb.ITable): string[] {
  const cfn = table.node.defaultChild;
  if (!(cfn instanceof dynamodb.CfnTable)) return [];
  const resolve = <T>(value: unknown): T => Stack.of(table).resolve(value) as T;
  const problems: string[] = [];
  const types = new Map(
    resolve<{ attributeName: string; attributeType: string }[] | undefined>(cfn.attributeDefinitions)?.map(
      (definition) => [definition.attributeName, definition.attributeType],
    ),
  );
  const keysOf = (schema: KeyElement[] | undefined) =>
    (schema ?? []).map((element) => `${element.attributeName} ${element.keyType}`).join(', ');
  const expectKeys = (what: string, schema: KeyElement[] | undefined, hash: string, range: string) => {
    const found = keysOf(schema);
    if (found !== `${hash} HASH, ${range} RANGE`) {
      problems.push(`table: ${what} must be ${hash} (partition) and ${range} (sort), found: ${found || 'none'}`);
    }
    for (const name of [hash, range]) {
      if (types.has(name) && types.get(name) !== 'S') problems.push(`table: attribute ${name} must be a string`);
    }
  };
  expectKeys('the key', resolve<KeyElement[]>(cfn.keySchema), TABLE_SCHEMA.partitionKey, TABLE_SCHEMA.sortKey);
  const indexes = resolve<
    { indexName: string; keySchema: KeyElement[]; projection?: { projectionType?: string } }[] | undefined
  >(cfn.globalSecondaryIndexes);
  const index = indexes?.find((each) => each.indexName === TABLE_SCHEMA.index);
  if (!index) {
    problems.push(`table: needs the global secondary index ${TABLE_SCHEMA.index}`);
  } else {
    expectKeys(
      `index ${TABLE_SCHEMA.index}`,
      index.keySchema,
      TABLE_SCHEMA.indexPartitionKey,
      TABLE_SCHEMA.indexSortKey,
    );
    if (index.projection?.projectionType !== 'ALL') {
      problems.push(`table: index ${TABLE_SCHEMA.index} must project ALL attributes`);
    }
  }
  const ttl = resolve<{ attributeName?: string; enabled?: boolean } | undefined>(cfn.timeToLiveSpecification);
  if (ttl?.attributeName !== TABLE_SCHEMA.ttlAttribute || ttl.enabled !== true) {
    problems.push(`table: needs TTL on ${TABLE_SCHEMA.ttlAttribute} (or audit entries are never removed)`);
  }
  return problems;
}

/** What is wrong with the user's queue as the verifier's event source (none for an imported queue). */
export function queueProblems(queue: sqs.IQueue, deadLetterQueue: sqs.IQueue, verifierTimeout: Duration): string[] {
  const problems: string[] = [];
  if (!(queue instanceof sqs.Queue)) return problems;
  const given = queue.deadLetterQueue?.queue;
  if (given && given !== deadLetterQueue) {
    problems.push("queue: deadLetterQueue is not the queue's own dead-letter queue");
  }
  const cfn = queue.node.defaultChild as sqs.CfnQueue;
  const visibility = Stack.of(queue).resolve(cfn.visibilityTimeout) as unknown;
  const seconds = visibility === undefined ? SQS_DEFAULT_VISIBILITY_TIMEOUT_SECONDS : visibility;
  // A value known only at deploy time cannot be checked here.
  if (typeof seconds === 'number' && seconds < verifierTimeout.toSeconds()) {
    problems.push(
      `queue: its visibility timeout (${seconds} s) must be at least the verifier's timeout ` +
        `(${verifierTimeout.toSeconds()} s); ${verifierTimeout.toSeconds() * 6} s is recommended`,
    );
  }
  return problems;
}
