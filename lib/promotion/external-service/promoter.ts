// The `external-service` strategy (docs/external-service.md): a promotion writes no Git and sends nothing. It records
// the revision the environment may run now, which the receiver serves at `GET /v1/inputs/{ns}/{pipeline}/{env}` to
// Flux Operator's ExternalService input provider on each leaf cluster; the leaf pulls it on its own schedule, and
// the verifier sees it arrive as for any promotion.
import { sameRevision } from '../../flux/revision.js';
import type { ApprovalMarker, ServedInput } from '../../decision/types.js';
import { pipelineKeyOf, type ObjectKey } from '../../pipeline/model.js';
import { PromotionError, type Promoter, type PromotionOutcome, type PromotionRequest } from '../port.js';

/** What the strategy reads and writes: the served input, and the approval marker that says who approved. */
export interface ServedInputStore {
  getServedInput(pipeline: ObjectKey, env: string): Promise<ServedInput | undefined>;
  putServedInput(pipeline: ObjectKey, input: ServedInput): Promise<void>;
  getApproval(pipeline: ObjectKey, env: string): Promise<ApprovalMarker | undefined>;
}

/** The receiver's path that serves an environment's input: the promotion's result, as a pull request's URL is. */
export function inputsPath(pipeline: ObjectKey, env: string): string {
  const segments = [pipeline.namespace, pipeline.name, env].map(encodeURIComponent);
  return `/v1/inputs/${segments.join('/')}`;
}

export class ExternalServicePromoter implements Promoter {
  constructor(
    private readonly store: ServedInputStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Idempotent: serving the revision already served changes nothing, so a resumed attempt writes nothing. */
  async promote(request: PromotionRequest): Promise<PromotionOutcome> {
    const { env, revision } = request;
    if (request.rollback) {
      throw new PromotionError(
        'Unsupported',
        `environment ${env.name} cannot be rolled back by external-service: rollback needs the pull-request strategy`,
      );
    }
    const key = pipelineKeyOf(request.pipeline);
    const result = { result: `served at ${inputsPath(key, env.name)}` };
    const served = await this.store.getServedInput(key, env.name);
    if (served && sameRevision(served.version, revision)) return result;
    const marker = await this.store.getApproval(key, env.name);
    const approved = marker && sameRevision(marker.revision, revision) && marker.approvedAt !== undefined;
    const at = this.now().toISOString();
    await this.store.putServedInput(key, {
      env: env.name,
      version: revision,
      ...(served ? { previousVersion: served.version } : {}),
      promotedAt: at,
      ...(approved && marker.approvedBy !== undefined ? { approvedBy: marker.approvedBy } : {}),
      servedSince: at,
    });
    return result;
  }
}
