// Verification records (docs/verification.md), one per (pipeline, environment), in the pipeline's partition (so a
// deleted pipeline takes them along). Each write is a put conditional on the stored version, so two evaluations
// racing cannot both land: the loser reads and folds its results again.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { VerificationRecord } from '../../decision/types.js';
import type { ObjectKey } from '../../pipeline/model.js';
import { CHECK_KINDS, type CheckResult } from '../../pipeline/verification.js';
import type { Verifications, VersionedVerificationRecord } from '../port.js';
import { queryAll } from './query.js';
import { conditionHeld, keys, type TableContext } from './table.js';

export class DynamoVerifications implements Verifications {
  constructor(private readonly table: TableContext) {}

  async listVerifications(pipeline: ObjectKey): Promise<VersionedVerificationRecord[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.pipeline(pipeline).pk, ':prefix': keys.verificationPrefix },
      ConsistentRead: true,
    });
    return items.flatMap((item) => {
      const stored = StoredVerification.safeParse(item);
      // An item this version cannot read (written by another) is as if none was: the checks are evaluated again.
      return stored.success ? [{ ...withoutItemFields(stored.data), pipeline }] : [];
    });
  }

  async putVerification(pipeline: ObjectKey, record: VerificationRecord, expectedVersion: number): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: {
            ...keys.verification(pipeline, record.env),
            entity: 'verification',
            ...record,
            version: expectedVersion + 1,
          },
          ConditionExpression: expectedVersion === 0 ? 'attribute_not_exists(pk)' : 'version = :version',
          ...(expectedVersion === 0 ? {} : { ExpressionAttributeValues: { ':version': expectedVersion } }),
        }),
      ),
    );
  }
}

const StoredResult: z.ZodMiniType<CheckResult> = z.object({
  name: z.string(),
  kind: z.enum(CHECK_KINDS),
  verdict: z.enum(['passed', 'failed', 'pending', 'inconclusive']),
  // Written by this version from its own CheckReason names; kept as read.
  reason: z.string() as unknown as z.ZodMiniType<CheckResult['reason']>,
  value: z.string(),
  message: z.string(),
  checkedAt: z.string(),
});

const StoredVerification = z.object({
  env: z.string(),
  revision: z.string(),
  startedAt: z.string(),
  checkedAt: z.string(),
  holdingSince: z.optional(z.string()),
  outcome: z.optional(z.enum(['passed', 'failed'])),
  decidedAt: z.optional(z.string()),
  results: z.array(StoredResult),
  version: z.int().check(z.positive()),
});

function withoutItemFields(stored: z.infer<typeof StoredVerification>): Omit<VersionedVerificationRecord, 'pipeline'> {
  const { env, revision, startedAt, checkedAt, holdingSince, outcome, decidedAt, results, version } = stored;
  return {
    env,
    revision,
    startedAt,
    checkedAt,
    ...(holdingSince === undefined ? {} : { holdingSince }),
    ...(outcome === undefined ? {} : { outcome }),
    ...(decidedAt === undefined ? {} : { decidedAt }),
    results,
    version,
  };
}
