// A Promoter that records promotions in memory instead of acting: for tests and dry runs. It keeps the port's
// contract (idempotent per pipeline, environment and revision), so tests can count effects, not calls.
import { objectKeyString } from '../pipeline/model.js';
import type { PromotionOutcome, PromotionRequest, Promoter } from './port.js';

export interface RecordedPromotion {
  pipeline: string;
  env: string;
  revision: string;
  /** Calls that asked for this promotion (a retry or a resumed attempt calls again). */
  calls: number;
}

export class RecordingPromoter implements Promoter {
  private readonly effects = new Map<string, RecordedPromotion>();
  /** Errors to throw before succeeding, one per call, in order. */
  private readonly failures: Error[] = [];

  failNext(...errors: Error[]): void {
    this.failures.push(...errors);
  }

  promote(request: PromotionRequest): Promise<PromotionOutcome> {
    const failure = this.failures.shift();
    if (failure) return Promise.reject(failure);
    const pipeline = objectKeyString(request.pipeline);
    const id = `${pipeline} ${request.env.name} ${request.revision}`;
    const effect = this.effects.get(id) ?? { pipeline, env: request.env.name, revision: request.revision, calls: 0 };
    effect.calls += 1;
    this.effects.set(id, effect);
    return Promise.resolve({ result: `recorded:${id}` });
  }

  /** One entry per distinct promotion made, in the order they were first made. */
  promotions(): RecordedPromotion[] {
    return [...this.effects.values()];
  }
}
