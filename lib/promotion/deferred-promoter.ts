// A strategy's promoter loaded on its first call, not when the process starts. The pull-request promoter brings the
// marker scan, the YAML editor and the tar and zip readers with it; with a ConfigSource's sync and a PipelineSet's
// apply, also loaded on first use, that was about a quarter of what the verifier's cold start loaded, for the few
// invocations that need them (docs/benchmarks.md, "Cold start"). Each Git host's client is loaded later still, on its
// first use (pull-request/deferred-host.ts).
//
// A promoter that cannot be loaded fails every call with a PromotionError, not retryable, as a host's client that
// cannot be loaded does: a module that failed to evaluate stays failed in this process, and a broken deployment is
// for a person to fix.
import type { HostDeploymentRecord, PullRequestState } from '../decision/types.js';
import { errorMessage } from '../util/error-message.js';
import {
  PromotionError,
  type DeploymentRequest,
  type Promoter,
  type PromotionOutcome,
  type PromotionRequest,
  type PullRequestStateRequest,
} from './port.js';

/** A promoter that opens pull requests, with every method a Promoter may have. */
export type FullPromoter = Required<Promoter>;

/**
 * The promoter `load` builds (a dynamic `import()` of its module), loaded once, by the first call. `strategy` names
 * it in the error when it cannot be loaded (`pull-request`).
 */
export function deferredPromoter(strategy: string, load: () => Promise<FullPromoter>): FullPromoter {
  let loading: Promise<FullPromoter> | undefined;
  const promoter = (): Promise<FullPromoter> =>
    (loading ??= load().catch((error: unknown) => {
      throw moduleLoadError(`${strategy} promoter`, `this deployment promotes nothing by ${strategy}`, error);
    }));
  return {
    async promote(request: PromotionRequest): Promise<PromotionOutcome> {
      return (await promoter()).promote(request);
    },
    async pullRequestState(request: PullRequestStateRequest): Promise<PullRequestState | undefined> {
      return (await promoter()).pullRequestState(request);
    },
    async recordDeployment(request: DeploymentRequest): Promise<Omit<HostDeploymentRecord, 'at'>> {
      return (await promoter()).recordDeployment(request);
    },
  };
}

/**
 * What a promotion fails with when a module it loads on first use cannot be loaded (`what`: `GitHub client`): not
 * retried, and `consequence` says what the deployment cannot do until a person fixes it.
 */
export function moduleLoadError(what: string, consequence: string, error: unknown): PromotionError {
  return new PromotionError(
    'Invalid',
    `the ${what} could not be loaded, so ${consequence} until it is fixed: ${errorMessage(error)}`,
    { cause: error },
  );
}
