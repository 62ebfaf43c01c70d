// The evidence of a release train's members (docs/release-trains.md), one item per (pipeline, environment,
// revision) in the pipeline's partition, so a deleted pipeline takes them along. Kept as JSON text, at most
// MAX_EVIDENCE_TARGETS targets: a pull request shows no more of them, and an item stays far below DynamoDB's 400 KB.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import type { PromotionEvidence } from '../../decision/types.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { PromotionEvidenceRecords } from '../port.js';
import { keys, type TableContext } from './table.js';

export const MAX_EVIDENCE_TARGETS = 200;

export class DynamoPromotionEvidence implements PromotionEvidenceRecords {
  constructor(private readonly table: TableContext) {}

  async recordPromotionEvidence(
    pipeline: ObjectKey,
    env: string,
    revision: string,
    evidence: PromotionEvidence,
  ): Promise<void> {
    await this.table.documents.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          ...keys.promotionEvidence(pipeline, env, revision),
          entity: 'promotion-evidence',
          evidence: JSON.stringify(boundedEvidence(evidence)),
        },
      }),
    );
  }

  async getPromotionEvidence(
    pipeline: ObjectKey,
    env: string,
    revision: string,
  ): Promise<PromotionEvidence | undefined> {
    const { Item } = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.promotionEvidence(pipeline, env, revision) }),
    );
    const text = z.object({ evidence: z.string() }).safeParse(Item);
    if (!text.success) return undefined;
    try {
      // Written by this version from the decision's own evidence; an item it cannot read is as if there were none.
      const stored: unknown = JSON.parse(text.data.evidence);
      return StoredEvidence.safeParse(stored).success ? (stored as PromotionEvidence) : undefined;
    } catch {
      return undefined;
    }
  }
}

/** At most MAX_EVIDENCE_TARGETS targets in each environment's evidence. */
export function boundedEvidence(evidence: PromotionEvidence): PromotionEvidence {
  const { also, ...own } = evidence;
  const bounded = { ...own, targets: own.targets.slice(0, MAX_EVIDENCE_TARGETS) };
  return also ? { ...bounded, also: also.map(boundedEvidence) } : bounded;
}

const StoredEvidence = z.object({
  from: z.string(),
  targets: z.array(z.object({ name: z.string(), phase: z.string() })),
});
