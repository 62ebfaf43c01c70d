// `check-pipeline`: decide for one pipeline, after reading its targets (or one environment's) when the message asks
// for it (a webhook, an apply), else from the stored records alone (a retry that came due, an expired lease, the
// poller's check).
import type { ClusterAccessError } from '../../clusters/port.js';
import { readsTargets, type CheckPipelineMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { evaluatePipeline } from '../evaluate.js';
import { appsOf } from '../pipeline-state.js';
import { mapLimit } from '../../util/map-limit.js';
import { observeApp, scheduleRecheck } from '../observe.js';
import type { EvaluationCause } from '../actions/schedule-recheck.js';

/** How many targets are read from clusters at once for one message. */
const READ_CONCURRENCY = 8;

export async function checkPipeline(message: CheckPipelineMessage, deps: VerifierDeps): Promise<void> {
  let failure: ClusterAccessError | undefined;
  let changed = false;
  if (readsTargets(message)) {
    const stored = await deps.store.getPipeline(message.pipeline);
    if (!stored) return;
    const observations = await mapLimit(appsOf(stored.pipeline, message.env), READ_CONCURRENCY, (app) =>
      observeApp(app, deps),
    );
    for (const observation of observations) await scheduleRecheck(observation, 0, deps);
    failure = observations.find((observation) => observation.retryableFailure)?.retryableFailure;
    changed = observations.some((observation) => observation.changed);
  }
  await evaluatePipeline(message.pipeline, deps, causeOf(message, changed));
  if (failure) throw failure;
}

/** What the evaluation follows, for the re-check (actions/schedule-recheck.ts). */
function causeOf(message: CheckPipelineMessage, changed: boolean): EvaluationCause {
  // An apply may bring new soaks, windows or grace periods; lifting a stop switch may uncover a window that ends later.
  if (message.cause === 'apply' || message.cause === 'unfreeze') return 'applied';
  // A poll recorded a change of one of its targets and left the decision to this message (deferred-decisions.ts).
  if (changed || message.cause === 'polled-change') return 'status-changed';
  // A delayed re-decision: a link of a soak re-check chain, or a promotion retry that came due.
  if (message.cause === 'retry') return 'delayed-check';
  return 'nothing-changed';
}
