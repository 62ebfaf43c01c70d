// `poll`: one LIST for a (cluster, kind), every target of every pipeline using it recorded, and a decision for each
// pipeline with a target that changed, a few seconds later and shared with the other poll messages of the same poll
// (deferred-decisions.ts). A pipeline spanning many clusters is not re-decided once per cluster on every poll when
// nothing changed: the poller's own `check-pipeline` per pipeline covers what comes due with time.
// The pair's usage and poll summary come in one read, and a target whose listed status the summary says is recorded
// already costs no store request at all (docs/architecture.md, "The poll
// summary"): the status items and their conditional writes stay the truth, the summary only saves reads.
import { ClusterAccessError } from '../../clusters/port.js';
import { GitopsClusterDocument } from '../../config/gitops-cluster.js';
import {
  appKeyString,
  keyOfMetadata,
  objectKeyString,
  pipelineKeyOf,
  type AppKey,
  type ObjectKey,
} from '../../pipeline/model.js';
import type { PollMessage } from '../../queue/messages.js';
import type { TargetStatus } from '../../flux/target-status.js';
import type { PollSummary, PolledStatus } from '../../store/port.js';
import type { VerifierDeps } from '../deps.js';
import type { DeferredDecisions } from '../deferred-decisions.js';
import { evaluatePipeline } from '../evaluate.js';
import { appsOnPair } from '../apps-on-pair.js';
import { nameOf } from '../list-digest.js';
import { followSetApps, setNamespaces } from '../pipeline-set-apps.js';
import { failureStatus, logStatusChanged, scheduleRecheck, statusOf, type Observation } from '../observe.js';
import type { RecentPipelines } from '../recent-pipelines.js';

/** What a poll of a pair listed, when its LIST succeeded: what the pair's poll digest is computed from. */
export interface PairListing {
  namespaces: string[];
  objects: Record<string, unknown>[];
}

/** A LIST of a pair made before its poll: what it found, or how it failed. */
export interface ListedBefore {
  namespaces: readonly string[];
  outcome: { objects: Record<string, unknown>[] } | { error: unknown };
}

export async function poll(
  message: PollMessage,
  deps: VerifierDeps,
  recentPipelines: RecentPipelines,
  deferredDecisions: Pick<DeferredDecisions, 'delaySeconds' | 'decideSoon'>,
  redelivered = false,
  /** The pair's LIST made already (by `poll-clusters`), reused when it was of the namespaces this poll lists. */
  listedBefore?: ListedBefore,
): Promise<PairListing | undefined> {
  const read = await deps.store.getClusterKindPoll(message.cluster, message.kind);
  // The PipelineSets whose apps generators look here (one read each, only for a pair one looks at).
  const sets = (await Promise.all((message.pipelineSets ?? []).map((key) => deps.store.getPipelineSet(key)))).flatMap(
    (set) => (set ? [set] : []),
  );
  if (!read && sets.length === 0) return undefined;
  const pipelines = (await Promise.all((read?.usage.pipelines ?? []).map((key) => recentPipelines.get(key)))).flatMap(
    (p) => (p ? [p.pipeline] : []),
  );
  const expected = new Map<string, AppKey>();
  for (const pipeline of pipelines) {
    for (const { app, key } of appsOnPair(pipeline, message.cluster, message.kind)) expected.set(key, app);
  }

  // Only what a stored definition lists is read: a usage item an interrupted apply left names no target.
  const setPlaces = setNamespaces(sets, message.cluster, message.kind);
  if (expected.size === 0 && setPlaces.length === 0) return undefined;
  const namespaces = [...new Set([...[...expected.values()].map((app) => app.namespace), ...setPlaces])];
  rememberRegistration(message.cluster, message.registration, deps);

  const observedAt = deps.now();
  let observations: Pick<Observation, 'app' | 'status'>[];
  let failure: Error | undefined;
  /** What the LIST found, when it succeeded: the sets' apps are followed from it alone. */
  let listed: Record<string, unknown>[] | undefined;
  try {
    const objects =
      listedBefore && sameNamespaces(listedBefore.namespaces, namespaces)
        ? outcomeOf(listedBefore)
        : await deps.clusters.listApps(message.cluster, message.kind, namespaces);
    listed = objects;
    const byName = new Map(objects.map((object) => [nameOf(object), object]));
    // A target missing from the list is recorded as not found, as a GET of it would be. Its `namespace/name` is its
    // key here (`nameOf`) as in the poll summary's entries.
    observations = [...expected.values()].map((app) => ({
      app,
      status: statusOf(app, byName.get(objectKeyString(app))),
    }));
  } catch (error) {
    const status = failureStatus(error);
    deps.logger.warn('cannot list apps', {
      cluster: objectKeyString(message.cluster),
      kind: message.kind,
      phase: status.phase,
      reason: status.reason,
      message: status.message,
    });
    observations = [...expected.values()].map((app) => ({ app, status }));
    if (!(error instanceof ClusterAccessError) || error.retryable) {
      failure = error instanceof Error ? error : new Error('listing apps failed');
    }
  }
  const changed = new Set<string>();
  const recorded = read ? await recordWithSummary(observations, observedAt, read.summary, message, deps) : [];
  for (const app of recorded) changed.add(appKeyString(app));
  for (const observation of observations) await scheduleRecheck(observation, 0, deps);
  // Received again: an earlier receive may have recorded its changes and failed before they were decided.
  const toDecide = pipelines
    .filter(
      (pipeline) =>
        redelivered ||
        (changed.size > 0 && appsOnPair(pipeline, message.cluster, message.kind).some(({ key }) => changed.has(key))),
    )
    .map(pipelineKeyOf);
  if (deferredDecisions.delaySeconds > 0) await deferredDecisions.decideSoon(toDecide);
  else for (const pipeline of toDecide) await evaluatePipeline(pipeline, deps, 'status-changed');
  if (listed && sets.length > 0) await followSetApps(sets, listed, message.cluster, message.kind, deps);
  if (failure) throw failure;
  return listed && { namespaces, objects: listed };
}

function outcomeOf({ outcome }: ListedBefore): Record<string, unknown>[] {
  if ('error' in outcome) throw outcome.error;
  return outcome.objects;
}

function sameNamespaces(before: readonly string[], now: readonly string[]): boolean {
  if (before.length !== now.length) return false;
  const listed = new Set(before);
  return now.every((namespace) => listed.has(namespace));
}

/**
 * Hands the registration the poller listed to the cluster reader, so that it does not read it again. One that does
 * not pass the GitopsCluster schema (a message of another version) is left alone: the reader reads the store.
 */
export function rememberRegistration(
  cluster: ObjectKey,
  registration: Record<string, unknown> | undefined,
  deps: VerifierDeps,
): void {
  if (!registration || !deps.clusterRegistrations) return;
  const parsed = GitopsClusterDocument.safeParse(registration);
  if (!parsed.success || objectKeyString(keyOfMetadata(parsed.data.metadata)) !== objectKeyString(cluster)) return;
  deps.clusterRegistrations.remember(cluster, parsed.data);
}

/**
 * Records the observations the summary does not vouch for, then writes what the summary should now say, over the
 * version read. When another writer moved the summary on meanwhile, the statuses this poll changed are forgotten in
 * it instead, so the summary never keeps an entry the poll made untrue. Returns the apps whose status changed.
 */
async function recordWithSummary(
  observations: readonly Pick<Observation, 'app' | 'status'>[],
  observedAt: Date,
  summary: PollSummary,
  message: PollMessage,
  deps: VerifierDeps,
): Promise<AppKey[]> {
  const summaries = deps.store;
  const changedApps: AppKey[] = [];
  const entries = new Map<string, PolledStatus | undefined>();
  const changed = (app: AppKey, status: TargetStatus): void => {
    logStatusChanged(deps, app, status);
    changedApps.push(app);
  };
  // Only an app with an entry needs its status fingerprinted: without one it is recorded whatever it is.
  let toRecord = observations.filter(({ app, status }) => {
    const known = summary.entries.get(objectKeyString(app));
    return known === undefined || known.fingerprint !== summaries.statusFingerprint(status);
  });
  // A pristine pair's first poll: the statuses not stored yet written in batches, the others one by one.
  const batched = summary.pristine && toRecord.length > 0;
  /** Statuses written without a condition: another writer's newer one may be under one of them. */
  let writtenBlind = false;
  if (batched) {
    const created = new Map(
      (await summaries.createPolledStatuses(toRecord, observedAt)).map(({ app, polled }) => [
        appKeyString(app),
        polled,
      ]),
    );
    writtenBlind = created.size > 0;
    for (const { app, status } of toRecord) {
      const polled = created.get(appKeyString(app));
      if (!polled) continue;
      changed(app, status);
      entries.set(objectKeyString(app), polled);
    }
    toRecord = toRecord.filter(({ app }) => !created.has(appKeyString(app)));
  }
  // An empty summary of a pair polled before: most likely an apply's new targets, tried as new.
  const likelyNew = summary.entries.size === 0 && !batched;
  for (const { app, status } of toRecord) {
    const name = objectKeyString(app);
    const known = summary.entries.get(name);
    const result = await summaries.recordPolledStatus(app, status, observedAt, { likelyNew });
    if (result.changed) changed(app, status);
    // An observation older than the stored one says nothing of what is stored: the entry goes.
    if (result.polled?.fingerprint !== known?.fingerprint || result.polled?.observedAt !== known?.observedAt) {
      if (result.polled || known) entries.set(name, result.polled);
    }
  }
  if (entries.size === 0) return changedApps;
  const written = await summaries.putPollSummary(message.cluster, message.kind, summary.version, entries);
  if (written) return changedApps;
  for (const app of changedApps) await summaries.forgetPolledStatus(app);
  // Another writer moved the summary on since it was read: it may have created a status the batch then wrote over
  // with this poll's older observation. The pair is polled again, no longer pristine, from a new LIST.
  if (writtenBlind) throw new FirstPollOverlapError(message.cluster, message.kind);
  return changedApps;
}

/** A pristine pair's first poll met another writer of its statuses: it fails, to be polled again. */
export class FirstPollOverlapError extends Error {
  override name = 'FirstPollOverlapError';

  constructor(cluster: ObjectKey, kind: string) {
    super(
      `another writer recorded statuses of ${objectKeyString(cluster)} ${kind} during its first poll, whose new ` +
        'statuses were written in batches: it is polled again',
    );
  }
}
