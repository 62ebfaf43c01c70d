// Whether a pipeline's decision can change with time alone, while nothing it reads is written: what the poll's check
// of every pipeline asks before it reads the pipeline's target statuses (docs/architecture.md, "The poll's check of
// every pipeline"). Everything else a decision depends on changes only by a write (a status, an approval, an apply,
// a stop switch), and each such write is followed by a decision that the queue redelivers until it is made.
import { coversPipeline, type FreezeSwitch } from '../pipeline/freeze.js';
import { pipelineKeyOf, type Pipeline } from '../pipeline/model.js';
import { promotionStage } from './promotion-lifecycle.js';
import type { PromotionRecord } from './types.js';

/** Why time alone may change a pipeline's decision: the first one found, in this order. */
export type TimeDependence =
  /** An environment soaks: its end lets the next one be promoted. */
  | 'soak'
  /** An environment verifies: its checks are evaluated again until they have held for its `for`. */
  | 'verification'
  /** An environment has freeze windows: a window's end lets a held promotion start. */
  | 'freeze-window'
  /** An environment rolls back by pull request: a failure becomes due once its grace period is over. */
  | 'rollback'
  /** A promotion or rollback record not finished: its lease expires, its retry comes due. */
  | 'open-promotion'
  /** A stop switch covers the pipeline: its `until` or its window ends by itself. */
  | 'freeze-switch';

export function timeDependence(
  pipeline: Pipeline,
  promotions: readonly Pick<PromotionRecord, 'state' | 'leaseExpiresAt' | 'retryAt'>[],
  freezes: readonly Pick<FreezeSwitch, 'scope'>[],
  now: Date,
): TimeDependence | undefined {
  const { environments } = pipeline;
  if (environments.some((env) => env.soak !== undefined)) return 'soak';
  if (environments.some((env) => env.verification !== undefined)) return 'verification';
  if (environments.some((env) => (env.freeze?.length ?? 0) > 0)) return 'freeze-window';
  if (environments.some((env) => env.rollback !== undefined)) return 'rollback';
  const open = promotions.some((record) => {
    const stage = promotionStage(record, now);
    return stage !== 'succeeded' && stage !== 'failed-for-good';
  });
  if (open) return 'open-promotion';
  const key = pipelineKeyOf(pipeline);
  if (freezes.some((freeze) => coversPipeline(freeze, key))) return 'freeze-switch';
  return undefined;
}
