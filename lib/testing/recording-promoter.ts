// A Promoter that records promotions in memory instead of acting: for tests, benchmarks and the demo. It keeps the port's
// contract (idempotent per pipeline, environment and revision, and per failed revision for a rollback), so tests
// can count effects, not calls.
import { objectKeyString } from '../pipeline/model.js';
import type { PromotionOutcome, PromotionRequest, Promoter } from '../promotion/port.js';

export interface RecordedPromotion {
  pipeline: string;
  env: string;
  revision: string;
  /** Set for a rollback: the failed revision, `revision` being what the environment is set back to. */
  rollbackFrom?: string;
  /** Calls that asked for this promotion (a retry or a resumed attempt calls again). */
  calls: number;
}

export class RecordingPromoter implements Promoter {
  private readonly effects = new Map<string, RecordedPromotion>();
  /** Errors to throw before succeeding, one per call, in order. */
  private readonly failures: Error[] = [];
  /** Every request that succeeded, as given (its evidence included). */
  private readonly calls: PromotionRequest[] = [];

  failNext(...errors: Error[]): void {
    this.failures.push(...errors);
  }

  promote(request: PromotionRequest): Promise<PromotionOutcome> {
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    const pipeline = objectKeyString(request.pipeline);
    const from = request.rollback?.from;
    const id =
      from === undefined
        ? `${pipeline} ${request.env.name} ${request.revision}`
        : `${pipeline} ${request.env.name} rollback from ${from} to ${request.revision}`;
    const effect: RecordedPromotion = this.effects.get(id) ?? {
      pipeline,
      env: request.env.name,
      revision: request.revision,
      ...(from === undefined ? {} : { rollbackFrom: from }),
      calls: 0,
    };
    effect.calls += 1;
    this.calls.push(request);
    this.effects.set(id, effect);
    return Promise.resolve({ result: `recorded:${id}` });
  }

  /** Every request that made or repeated an effect, in order, as the caller gave it. */
  requests(): readonly PromotionRequest[] {
    return [...this.calls];
  }

  /** One entry per distinct promotion made, in the order they were first made. */
  promotions(): RecordedPromotion[] {
    return [...this.effects.values()];
  }
}
