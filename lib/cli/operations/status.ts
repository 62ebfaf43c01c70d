// What `pipelinectl status` shows: per pipeline, each environment × target with its revision and phase, the
// decision for each environment (made now, from the stored state, exactly as the verifier would), waiting approvals
// and promotions; as a table or as JSON (the shape is `StatusJson`).
import { isGraph } from '../../pipeline/environment-graph.js';
import type { StrategyName } from '../../pipeline/promotion.js';
import { rolledBackEnv } from '../../decision/rollback-record.js';
import type {
  ApprovalMarker,
  EnvironmentReason,
  EnvironmentState,
  PromotionState,
  PullRequestState,
  SourceExplanation,
  SourceReason,
  SourceState,
} from '../../decision/index.js';
import { timeLeftUntil } from '../../decision/index.js';
import { oneLine } from '../../decision/text.js';
import { approveCommand } from '../../notify/approve-command.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { generatingSet } from '../../pipeline/pipeline-set.js';
import type { StoredConfigSource, VersionedPromotionRecord, VersionedVerificationRecord } from '../../store/port.js';
import type { CheckResult } from '../../pipeline/verification.js';
import {
  loadPipelineView,
  phaseOf,
  summarizeTargets,
  type EnvironmentView,
  type PipelineView,
  type TargetsSummary,
  type TargetView,
  type TargetViewPhase,
  type TargetViewReason,
} from '../../views/pipeline-view.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { ago, clip, formatTable, LINE_WIDTH } from '../output.js';
import { listAll } from '../../util/paged.js';
import { owningSource } from '../../apply/stored-objects.js';
import { environmentStateText } from '../../views/state-words.js';
import { configSourceStatusSummary, type ConfigSourceStatusSummaryJson } from './config-sources.js';

/**
 * What `pipelinectl status -o json` prints: `{ "pipelines": [...], "configSources": [...] }`, one entry per pipeline
 * (just one when a pipeline is named) and per ConfigSource (when a pipeline is named, the one that applied it, if
 * any). Absent values are `null`, never left out; times are ISO 8601 (UTC). docs/cli.md shows it.
 */
export interface StatusJson {
  pipelines: PipelineStatusJson[];
  configSources: ConfigSourceStatusSummaryJson[];
}

export interface PipelineStatusJson {
  namespace: string;
  name: string;
  app: { apiVersion: string; kind: string; name: string };
  /** Counts the applies that changed the pipeline. */
  generation: number;
  appliedAt: string;
  /** `ns/name` of the PipelineSet that generated the pipeline; absent for a hand-written one. */
  pipelineSet?: string;
  /**
   * The revision the pipeline promotes: the first environment's when all its targets run it and are healthy; with a
   * source whose version the first environment does not run yet, that version.
   */
  candidate: string | null;
  /** Where `spec.source` stands; null for a pipeline without one. */
  source: SourceStatusJson | null;
  /** In promotion order. */
  environments: EnvironmentStatusJson[];
}

export interface SourceStatusJson {
  /** `ImagePolicy flux-system/podinfo on flux-system/dev`. */
  object: string;
  state: SourceState;
  reason: SourceReason;
  message: string;
  /** What the source resolved, and the version written into the first environment's markers; null when none. */
  revision: string | null;
  version: string | null;
}

export interface EnvironmentStatusJson {
  name: string;
  /** The environments it follows, in the order `after` names them (docs/environment-graphs.md); [] for the first. */
  after: string[];
  /** Promoted only after an approval of exactly the candidate. */
  manual: boolean;
  strategy: StrategyName | null;
  /** The decision for the environment: source, passed, soaking, in-progress, ahead, unknown, suspended, promoting,
   *  pull-request-open, pull-request-closed, promoted, failed, waiting-approval, waiting-group, rejected, frozen,
   *  rolling-back,
   *  no-strategy or not-reached. */
  state: EnvironmentState;
  /** The state in plain words, as the table, `explain` and the dashboard say it: `rolling out`, `waits for staging`. */
  stateText: string;
  /** `not-reached`: the environment it waits for; else null. */
  waitsFor: string | null;
  /** `waiting-group`: the members of its group the release train waits for (`{namespace}/{name}`); else null. */
  waitsForMembers: string[] | null;
  /** Why the environment is in its state, e.g. `RollingOut`, `AwaitingApproval`, `RetryScheduled` (docs/cli.md). */
  reason: EnvironmentReason;
  /** The decision's one-line explanation. */
  message: string;
  /** ISO 8601: when the soak of a soaking environment, or the one it waits for, is served; else null. */
  soakEndsAt: string | null;
  /** ISO 8601: when the freeze holding a `frozen` environment ends by itself; else null. */
  frozenUntil: string | null;
  /** ISO 8601: when a rollback waiting out its grace period (`RollbackGracePeriod`) becomes due; else null. */
  rollbackAt: string | null;
  /**
   * The pull request the promotion of the candidate opened here, and where it stands as its Git host last said
   * (read by the poll while it is open; `open` until then); null when the candidate was not promoted here by one.
   */
  pullRequest: { url: string; state: PullRequestState } | null;
  /** ISO 8601: when the checks of a `VerificationHolding` environment will have held for their `for`; else null. */
  verificationEndsAt: string | null;
  /** What its verification checks last found (docs/verification.md); null before the first evaluation. */
  verification: VerificationJson | null;
  targets: TargetStatusJson[];
  /** The environment's approval marker, if any. */
  approval: ApprovalJson | null;
  /** The environment's promotion records, newest first. */
  promotions: PromotionJson[];
}

export interface VerificationJson {
  /** The revision the checks were evaluated for (the candidate, or the last one verified there). */
  revision: string;
  /** `passed` (held for the whole `for`), `failed`, or null while it is not decided. */
  outcome: 'passed' | 'failed' | null;
  startedAt: string;
  checkedAt: string;
  /** Since when every check has passed, in every evaluation since; null when the latest did not pass them all. */
  holdingSince: string | null;
  /** Each check's latest result: name, kind, verdict, reason, the value seen, a message, when. */
  checks: CheckResult[];
}

export interface TargetStatusJson {
  /** The GitopsCluster, `ns/name`. */
  cluster: string;
  /** The app's namespace on that cluster. */
  namespace: string;
  revision: string | null;
  /** Ready, Progressing, Failed, Suspended, Absent, Unreadable; `Unobserved` before the first read. */
  phase: TargetViewPhase;
  /** Why, e.g. `Deployed`, `Reconciling`, `TestsFailed`, `Forbidden`; `NeverObserved` before the first read. */
  reason: TargetViewReason;
  /** One line for a person (the failing condition's message, the read error); null before the first read. */
  message: string | null;
  /** When a read last produced this status. */
  observedAt: string | null;
  /** When the status last became what it is. */
  changedAt: string | null;
}

export interface ApprovalJson {
  revision: string;
  requestedAt: string;
  /** True until `revision` is approved (by as many as the environment's policy requires) or rejected. */
  waiting: boolean;
  approvedAt: string | null;
  approvedBy: string | null;
  /** Every distinct approval so far under a policy, oldest first (empty for a marker approved by one). */
  approvals: { by: string; at: string }[];
  rejectedAt: string | null;
  rejectedBy: string | null;
  rejectionReason: string | null;
}

export interface PromotionJson {
  /** `rollback`: the record of a rollback pull request for the failed `revision` (docs/rollback.md). */
  kind: 'promotion' | 'rollback';
  revision: string;
  state: PromotionState;
  attempts: number;
  updatedAt: string;
  /** What the promotion produced, e.g. the pull request's URL. */
  result: string | null;
  /** The last failure. */
  error: string | null;
  /** When a failed promotion is tried again; null on a failure a person must fix. */
  retryAt: string | null;
}

export function statusJson(view: PipelineView): PipelineStatusJson {
  const { pipeline, generation, appliedAt, document } = view.stored;
  const set = generatingSet(document.metadata);
  return {
    namespace: pipeline.namespace,
    name: pipeline.name,
    app: { ...pipeline.appRef },
    generation,
    appliedAt,
    ...(set ? { pipelineSet: objectKeyString(set) } : {}),
    candidate: view.decision.candidate ?? null,
    source: sourceJson(view.decision.source),
    environments: view.environments.map((env) => ({
      name: env.name,
      after: env.after,
      manual: env.manual,
      strategy: env.strategy ?? null,
      state: env.state,
      stateText: environmentStateText(env),
      waitsFor: env.waitsFor ?? null,
      waitsForMembers: env.waitsForMembers ?? null,
      reason: env.reason,
      message: env.message,
      soakEndsAt: env.soakEndsAt ?? null,
      frozenUntil: env.frozenUntil ?? null,
      rollbackAt: env.rollbackAt ?? null,
      pullRequest: env.pullRequest ? { url: env.pullRequest.url, state: env.pullRequest.state } : null,
      verificationEndsAt: env.verificationEndsAt ?? null,
      verification: env.verification ? verificationJson(env.verification) : null,
      targets: env.targets.map(({ cluster, namespace, observed }) => ({
        cluster: objectKeyString(cluster),
        namespace,
        revision: observed?.status.revision ?? null,
        ...phaseOf(observed),
        message: observed?.status.message ?? null,
        observedAt: observed?.observedAt ?? null,
        changedAt: observed?.changedAt ?? null,
      })),
      approval: env.approval
        ? {
            revision: env.approval.revision,
            requestedAt: env.approval.requestedAt,
            waiting: env.approval.approvedAt === undefined && env.approval.rejectedAt === undefined,
            approvedAt: env.approval.approvedAt ?? null,
            approvedBy: env.approval.approvedBy ?? null,
            approvals: env.approval.approvals ?? [],
            rejectedAt: env.approval.rejectedAt ?? null,
            rejectedBy: env.approval.rejectedBy ?? null,
            rejectionReason: env.approval.rejectionReason ?? null,
          }
        : null,
      promotions: env.promotions.map((record) => ({
        kind: rolledBackEnv(record.env) === undefined ? ('promotion' as const) : ('rollback' as const),
        revision: record.revision,
        state: record.state,
        attempts: record.attempts,
        updatedAt: record.updatedAt,
        result: record.result ?? null,
        error: record.error ?? null,
        retryAt: record.retryAt ?? null,
      })),
    })),
  };
}

function sourceJson(source: SourceExplanation | undefined): SourceStatusJson | null {
  if (!source) return null;
  const { object, state, reason, message } = source;
  return { object, state, reason, message, revision: source.revision ?? null, version: source.version ?? null };
}

const ENV_WIDTH = 16;

/**
 * An environment with more targets than this is shown in short in the table: one summary row (counts by phase) and
 * the targets holding it back, so that `status` stays readable at fleet size. `--all-targets` shows every row;
 * `-o json` and `-o yaml` always list every target.
 */
export const SUMMARIZED_ABOVE_TARGETS = 10;
/** At most this many rows of targets holding a summarized environment back; `… and N more` says how many are left. */
export const HOLDING_BACK_ROWS = 10;

export interface StatusTableOptions {
  /** One row per target in every environment, however many it has (`--all-targets`). */
  allTargets?: boolean;
  /** The flags that chose this run's backend (backendFlags), for the approve command of a waiting approval. */
  approveFlags?: readonly string[];
}

/** A row of the table: a target, a summarized environment's counts, or how many targets were left out. */
type TableRow =
  | { type: 'target'; cells: string[] }
  | { type: 'summary'; cells: string[]; text: string }
  | { type: 'more'; text: string };

/**
 * The table for one pipeline: a title line, then one row per target with the environment's decision on its first
 * row, and under each environment the decision's explanation, its approval marker and its newest promotion. An
 * environment with more than SUMMARIZED_ABOVE_TARGETS targets has a summary row instead (`300 targets: 296 Ready on
 * 6.5.0, 3 Progressing, 1 Failed`), then the targets holding it back, at most HOLDING_BACK_ROWS of them.
 */
export function statusTable(view: PipelineView, now: Date, options: StatusTableOptions = {}): string[] {
  const { pipeline } = view.stored;
  const candidate = view.decision.candidate === undefined ? 'no candidate' : `candidate ${view.decision.candidate}`;
  const title = `${objectKeyString(view.key)}  ${pipeline.appRef.kind} ${pipeline.appRef.name}  ${candidate}`;
  const targetCells = (env: EnvironmentView, { cluster, namespace, observed }: TargetView, first: boolean) => [
    first ? env.name : '',
    objectKeyString(cluster),
    namespace,
    observed?.status.revision ?? '-',
    phaseOf(observed).phase,
    observed ? ago(observed.observedAt, now) : 'never',
    first ? stateCell(env, now) : '',
  ];
  const rowsOf = (env: EnvironmentView): TableRow[] => {
    if (options.allTargets || env.targets.length <= SUMMARIZED_ABOVE_TARGETS) {
      return env.targets.map((target, i) => ({ type: 'target', cells: targetCells(env, target, i === 0) }));
    }
    const summary = summarizeTargets(view, env);
    const shown = summary.holdingBack.slice(0, HOLDING_BACK_ROWS);
    const left = summary.holdingBack.length - shown.length;
    const more: TableRow[] =
      left > 0
        ? [{ type: 'more', text: `… and ${left} more holding ${env.name} back (--all-targets shows every target)` }]
        : [];
    return [
      // The revisions in the counts come from the leaf clusters: made one line, as formatTable makes every cell.
      {
        type: 'summary',
        cells: [env.name, '', '', '', '', '', stateCell(env, now)],
        text: oneLine(summaryText(summary)),
      },
      ...shown.map((target): TableRow => ({ type: 'target', cells: targetCells(env, target, false) })),
      ...more,
    ];
  };
  const envRows = view.environments.map(rowsOf);
  const tabled = envRows.flat().filter((row) => row.type !== 'more');
  const [header = '', ...lines] = formatTable(
    [
      { header: 'ENV', max: ENV_WIDTH },
      { header: 'CLUSTER', max: 32 },
      { header: 'NAMESPACE', max: 20 },
      { header: 'REVISION', max: 24 },
      { header: 'PHASE' },
      { header: 'LAST SEEN' },
      { header: 'STATE' },
    ],
    tabled.map((row) => row.cells),
  );
  // A summary row and a `… and N more` row span the target columns: from CLUSTER to STATE (the last column).
  const targetsAt = header.indexOf('CLUSTER');
  const stateAt = header.length - 'STATE'.length;
  const spanning = (row: TableRow, line: string): string => {
    if (row.type === 'more') return clip(`${' '.repeat(targetsAt)}${row.text}`, LINE_WIDTH);
    if (row.type === 'target') return line;
    const state = row.cells.at(-1) ?? '';
    const room = Math.max(1, LINE_WIDTH - targetsAt - 2 - state.length);
    const text = clip(row.text, room);
    const gap = Math.max(2, stateAt - targetsAt - text.length);
    return clip(`${line.slice(0, targetsAt)}${text}${' '.repeat(gap)}${state}`.trimEnd(), LINE_WIDTH);
  };
  const indent = ' '.repeat(Math.min(ENV_WIDTH, Math.max(3, ...view.environments.map((e) => e.name.length))) + 2);
  const detail = (text: string) => clip(`${indent}${text}`, LINE_WIDTH);
  const out = [clip(title, LINE_WIDTH)];
  const { source } = view.decision;
  if (source) out.push(clip(`source: ${source.message} (${source.state}/${source.reason})`, LINE_WIDTH));
  out.push(header);
  let next = 0;
  // A line needs no word on what follows what; a graph names each environment's predecessors.
  const graph = isGraph(pipeline.environments);
  view.environments.forEach((env, i) => {
    for (const row of envRows[i] ?? []) out.push(spanning(row, row.type === 'more' ? '' : (lines[next++] ?? '')));
    if (graph && env.after.length > 0) out.push(detail(`after ${env.after.join(', ')}`));
    out.push(detail(env.message));
    // Not clipped: the approve command in it is printed to be pasted, and a command cut short is no command.
    if (env.approval) out.push(`${indent}${approvalLine(view.key, env.name, env.approval, now, options.approveFlags)}`);
    if (env.verification) {
      for (const result of env.verification.results) out.push(detail(checkLine(result, now)));
    }
    const [newest, ...older] = env.promotions;
    if (newest) {
      const more = older.length > 0 ? ` (+${older.length} older)` : '';
      out.push(detail(`promotion: ${promotionLine(newest, now)}${more}`));
    }
  });
  return out;
}

function verificationJson(record: VersionedVerificationRecord): VerificationJson {
  return {
    revision: record.revision,
    outcome: record.outcome ?? null,
    startedAt: record.startedAt,
    checkedAt: record.checkedAt,
    holdingSince: record.holdingSince ?? null,
    checks: record.results,
  };
}

/**
 * `check errors (cloudwatchAlarms): passed, podinfo-5xx OK, 30s ago`: one check's latest result, as `status` and
 * `explain` print it under the environment.
 */
export function checkLine(result: CheckResult, now: Date): string {
  return `check ${result.name} (${result.kind}): ${result.verdict}, ${result.value}, ${ago(result.checkedAt, now)}`;
}

/** `300 targets: 296 Ready on 6.5.0, 3 Progressing, 1 Failed`. */
export function summaryText(summary: TargetsSummary): string {
  const counts = summary.counts.map(({ phase, revision, count }) =>
    phase === 'Ready' && revision !== undefined ? `${count} Ready on ${revision}` : `${count} ${phase}`,
  );
  return `${summary.total} targets: ${counts.join(', ')}`;
}

/**
 * `approval: 6.9.2 requested 5m ago, waiting (pipelinectl approve NS/NAME ENV --revision 6.9.2 …)`, or `…, approved
 * 1m ago by …`. The approve command is the one notifications carry, with `approveFlags` (the flags that chose this
 * run's backend) after it, so that pasted into the same shell it approves exactly the revision shown, where it waits.
 */
export function approvalLine(
  key: ObjectKey,
  env: string,
  marker: ApprovalMarker,
  now: Date,
  approveFlags: readonly string[] = [],
): string {
  const requested = `approval: ${marker.revision} requested ${ago(marker.requestedAt, now)}`;
  if (marker.rejectedAt !== undefined) {
    const by = marker.rejectedBy === undefined ? '' : ` by ${marker.rejectedBy}`;
    const why = marker.rejectionReason === undefined ? '' : `: ${marker.rejectionReason}`;
    return `${requested}, rejected ${ago(marker.rejectedAt, now)}${by}${why}`;
  }
  if (marker.approvedAt === undefined) {
    const counted = marker.approvals?.map((approval) => approval.by) ?? [];
    const so = counted.length > 0 ? `approved so far by ${counted.join(', ')}; ` : '';
    return `${requested}, waiting (${so}${approveCommand(key, env, marker.revision, approveFlags)})`;
  }
  const by = marker.approvedBy === undefined ? '' : ` by ${marker.approvedBy}`;
  return `${requested}, approved ${ago(marker.approvedAt, now)}${by}`;
}

/** `6.9.2 failed (attempt 2) 1m ago: <error>; retry in 30s`, `6.9.2 succeeded 5m ago: <PR URL>`. */
export function promotionLine(record: VersionedPromotionRecord, now: Date): string {
  const what = rolledBackEnv(record.env) === undefined ? '' : 'rollback of ';
  let text = `${what}${record.revision} ${record.state} (attempt ${record.attempts}) ${ago(record.updatedAt, now)}`;
  if (record.result) text += `: ${record.result}`;
  if (record.error) text += `: ${record.error}`;
  if (record.state === 'failed') text += record.retryAt ? `; retry ${ago(record.retryAt, now)}` : '; not retried';
  return text;
}

/** The views of one named pipeline or of every stored one. */
export async function pipelineViews(backend: Backend, key: ObjectKey | undefined, now: Date): Promise<PipelineView[]> {
  const keys = key
    ? [key]
    : (await listAll((page) => backend.store.listPipelines(page))).map(({ pipeline }) => ({
        namespace: pipeline.namespace,
        name: pipeline.name,
      }));
  const views: PipelineView[] = [];
  for (const each of keys) {
    const view = await loadPipelineView(backend.store, each, now);
    if (view) views.push(view);
    else if (key) throw new CliError(`pipeline ${objectKeyString(key)} not found in ${backend.description}`);
  }
  return views;
}

/** What `status` shows, read once: the pipelines' views, the ConfigSources, and the two as `-o json` prints them. */
export async function readStatus(
  backend: Backend,
  key: ObjectKey | undefined,
  now: Date,
): Promise<{ views: PipelineView[]; sources: StoredConfigSource[]; json: StatusJson }> {
  const views = await pipelineViews(backend, key, now);
  const sources = await statusConfigSources(backend, key, views);
  return {
    views,
    sources,
    json: { pipelines: views.map(statusJson), configSources: sources.map(configSourceStatusSummary) },
  };
}

/**
 * The ConfigSources `status` shows: every stored one (one list of them), or, when a pipeline is named, the one that
 * applied it (none for a pipeline applied with the CLI, or whose source was deleted).
 */
async function statusConfigSources(
  backend: Backend,
  key: ObjectKey | undefined,
  views: readonly PipelineView[],
): Promise<StoredConfigSource[]> {
  if (!key) return listAll((page) => backend.store.listConfigSources(page));
  const source = await owningSource(backend.store, views[0]?.stored.owner);
  return source ? [source] : [];
}

/**
 * The state in words, with the time its wait has left: `soaking (12m left (until 10:42 UTC))`, `frozen (until
 * unfrozen)`, `rolling out (rollback in 4m left (until 10:42 UTC))`.
 */
function stateCell(env: EnvironmentView, now: Date): string {
  const words = environmentStateText(env);
  if (env.state === 'frozen') {
    const left = env.frozenUntil === undefined ? undefined : timeLeftUntil(env.frozenUntil, now);
    return `${words} (${left ?? 'until unfrozen'})`;
  }
  if (env.rollbackAt !== undefined) {
    const left = timeLeftUntil(env.rollbackAt, now);
    return left === undefined ? words : `${words} (rollback in ${left})`;
  }
  const ends = env.soakEndsAt ?? env.verificationEndsAt;
  const left = ends === undefined ? undefined : timeLeftUntil(ends, now);
  return left === undefined ? words : `${words} (${left})`;
}
