// `check-pipeline`: decide for one pipeline, after reading its targets (or one environment's) when the message asks
// for it (a webhook, an apply), else from the stored records alone (a retry that came due, an expired lease, the
// poller's check, which leaves alone a pipeline that time cannot change). A poll's change (`polled-change`) that a
// later decision in this container answered is not decided again (deferred-decisions.ts).
import type { ClusterAccessError } from '../../clusters/port.js';
import { timeDependence } from '../../decision/index.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { readsTargets, type CheckPipelineMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { evaluatePipeline } from '../evaluate.js';
import { appsOf, type KnownPipelineState } from '../../pipeline-state/pipeline-state.js';
import { mapLimit } from '../../util/map-limit.js';
import { observeApp, scheduleRecheck } from '../observe.js';
import { readPullRequestStates } from '../pull-request-states.js';
import type { EvaluationCause } from '../effects/schedule-recheck.js';
import type { RecentPipelines } from '../recent-pipelines.js';
import type { DeferredDecisions } from '../deferred-decisions.js';

/** How many targets are read from clusters at once for one message. */
const READ_CONCURRENCY = 8;

export async function checkPipeline(
  message: CheckPipelineMessage,
  deps: VerifierDeps,
  recentPipelines: RecentPipelines,
  deferredDecisions: Pick<DeferredDecisions, 'answered' | 'decided'>,
): Promise<void> {
  if (deferredDecisions.answered(message)) {
    deps.logger.debug('decided since its changes were recorded; not decided again', {
      pipeline: objectKeyString(message.pipeline),
    });
    return;
  }
  const startedAt = deps.now();
  let known: KnownPipelineState | undefined;
  if (message.cause === 'poll') {
    known = await polledState(message.pipeline, deps, recentPipelines);
    if (!known) return;
  } else if (message.cause === 'resume') {
    // The local mode's first poll after a start decides every pipeline: it reads the pull requests as any poll does.
    const stored = await deps.store.getPipeline(message.pipeline);
    if (!stored) return;
    const promotions = await deps.store.listPromotions(message.pipeline);
    known = { stored, promotions: (await readPullRequestStates(stored.pipeline, promotions, deps)) ?? promotions };
  }
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
  await evaluatePipeline(message.pipeline, deps, causeOf(message, changed), known);
  deferredDecisions.decided(message, startedAt);
  if (failure) throw failure;
}

/**
 * The poll's check of every pipeline decides only a pipeline whose decision time alone may change (a soak, a freeze,
 * a rollback's grace, a retry or a lease that comes due: lib/decision/time-dependence.ts), or one whose promotion's
 * pull request this poll found merged or closed (pull-request-states.ts: the host is read once per open pull
 * request), from three small reads instead of all its targets' statuses. A quiet pipeline's decision changes only
 * with a write, and each write is followed by a decision its message's redelivery repeats until it is made
 * (docs/architecture.md). Returns what it read for the decision to go on from, or undefined when there is nothing to
 * decide (or no pipeline). The definition is read once per configuration generation in a warm container
 * (recent-pipelines.ts): every poll checks every pipeline, and a definition holds all its targets.
 */
async function polledState(
  key: ObjectKey,
  deps: VerifierDeps,
  recentPipelines: RecentPipelines,
): Promise<KnownPipelineState | undefined> {
  const generation = await deps.store.getConfigurationGeneration();
  const [stored, promotions, freezes] = await Promise.all([
    recentPipelines.atCurrentGeneration(key, generation),
    deps.store.listPromotions(key),
    deps.store.listFreezes(),
  ]);
  if (!stored) return undefined;
  const moved = await readPullRequestStates(stored.pipeline, promotions, deps);
  if (moved) return { stored, promotions: moved };
  if (timeDependence(stored.pipeline, promotions, freezes, deps.now()) === undefined) {
    deps.logger.debug('nothing can come due with time; not decided', { pipeline: objectKeyString(key) });
    return undefined;
  }
  return { stored, promotions };
}

/** What the evaluation follows, for the re-check (effects/schedule-recheck.ts). */
function causeOf(message: CheckPipelineMessage, changed: boolean): EvaluationCause {
  // An apply may bring new soaks, windows or grace periods; lifting a stop switch may uncover a window that ends later;
  // a resumed local mode lost the re-checks it had queued.
  if (message.cause === 'apply' || message.cause === 'unfreeze' || message.cause === 'resume') return 'applied';
  // A poll recorded a change of one of its targets and left the decision to this message (deferred-decisions.ts).
  if (changed || message.cause === 'polled-change') return 'status-changed';
  // A delayed re-decision: a link of a soak re-check chain, or a promotion retry that came due.
  if (message.cause === 'retry') return 'delayed-check';
  return 'nothing-changed';
}
