// What `pipelinectl check` does: the checks of lib/check run on the stored pipelines with what the deployment reads
// with (its Secrets, EKS access, Git API URLs, notification sinks), as one table or JSON. The cluster reader and the
// Git hosts are the verifier's own adapters, set to give up sooner: a check answers in seconds, it does not wait out
// a failing host.
import { checkPipelines, summarize, type CheckRow, type CheckSummary } from '../../check/index.js';
import { KubernetesClusterReader } from '../../clusters/index.js';
import { objectKeyString, type ObjectKey, type Pipeline } from '../../pipeline/model.js';
import type { GitProviderType } from '../../pipeline/promotion.js';
import type { GitHost, GitHostSettings } from '../../promotion/pull-request/host.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { formatTable } from '../output.js';
import { listAll } from '../../util/paged.js';
import type { CheckPorts } from '../../check/ports.js';
import type { SecretSource } from '../../secrets/port.js';
import { cloudWatchAlarmsReader, evaluateCloudWatchAlarmsCheck } from '../../verification/cloudwatch-alarms-check.js';
import { evaluateOneCheck, readCheckSecrets } from '../../verification/evaluate-check.js';

/** The exit code of a check with a failed row (1 is any other error: an unknown pipeline, an unreachable store). */
export const CHECK_FAILED_EXIT_CODE = 2;

/** Each request to a Git host: one retry of a 5xx or a network error, no long waits. */
const GIT_HOST_SETTINGS: GitHostSettings = {
  retries: 1,
  retryBaseDelayMs: 500,
  maxRateLimitWaitMs: 5_000,
  requestTimeoutMs: 10_000,
};
/** Each request to a leaf cluster, discovery included. */
const CLUSTER_TIMEOUT_MS = 10_000;

export interface CheckOptions {
  /** One pipeline; default every stored one. */
  pipeline?: ObjectKey;
  /** Git API base URLs given on the command line: they win over the deployment's. */
  gitApiUrls?: Partial<Record<GitProviderType, string>>;
}

/** What a check found; `-o json` prints it as it is. */
export interface CheckReport {
  /** The pipelines checked, `ns/name`. */
  pipelines: string[];
  rows: CheckRow[];
  summary: CheckSummary;
}

export async function runChecks(backend: Backend, options: CheckOptions = {}): Promise<CheckReport> {
  const pipelines = await pipelinesOf(backend, options.pipeline);
  const secrets = backend.secrets;
  if (!secrets) {
    throw new CliError(
      `${backend.description} does not give out its Secrets: its clusters and Git hosts cannot be read`,
    );
  }
  const store = backend.store;
  const clusters = new KubernetesClusterReader({
    getCluster: async (key) => (await store.getCluster(key))?.document,
    secrets,
    eksTokens: await backend.eksAccess?.(),
    timeoutMs: CLUSTER_TIMEOUT_MS,
  });
  const rows = await checkPipelines(pipelines, {
    clusters,
    secrets,
    gitHost: gitHosts(),
    gitApiUrls: { ...(await backend.gitApiUrls?.()), ...options.gitApiUrls },
    notificationSinks: backend.notificationSinks?.bind(backend),
    evaluateCheck: verificationCheckEvaluator(clusters, secrets),
  });
  const explained = await explainFailures(backend, rows);
  return {
    pipelines: pipelines.map((pipeline) => objectKeyString(pipeline)),
    rows: explained,
    summary: summarize(explained),
  };
}

/**
 * Evaluates one verification check as the verifier does (lib/verification), with the caller's Secrets and AWS
 * credentials. A Canary counts from any revision: `check` asks whether it exists and answers, not whether it
 * passed the candidate.
 */
export function verificationCheckEvaluator(
  clusters: KubernetesClusterReader,
  secrets: SecretSource,
): NonNullable<CheckPorts['evaluateCheck']> {
  const cloudwatch = cloudWatchAlarmsReader({ timeoutMs: CLUSTER_TIMEOUT_MS });
  return async (pipeline, env, check) =>
    evaluateOneCheck(check, '', {
      clusters,
      targets: env.targets.map((target) => ({
        cluster: target.cluster,
        reachedCandidateAt: new Date(0).toISOString(),
      })),
      secrets: await readCheckSecrets(pipeline.namespace, [check], secrets),
      outbound: { timeoutMs: CLUSTER_TIMEOUT_MS },
      cloudwatchAlarms: (name, written, context) =>
        evaluateCloudWatchAlarmsCheck(name, written, { ...context, cloudwatch }),
    });
}

/**
 * Failed rows say why nothing could answer, when the backend knows (a stopped demo), in place of the connection
 * errors that would only follow from it.
 */
async function explainFailures(backend: Backend, rows: CheckRow[]): Promise<CheckRow[]> {
  if (!rows.some((row) => row.outcome === 'failed')) return rows;
  const reason = await backend.unreachableReason?.();
  if (reason === undefined) return rows;
  return rows.map((row) => (row.outcome === 'failed' ? { ...row, message: reason } : row));
}

/** Each host's adapter, imported when a pipeline first promotes to that host: a check loads only the clients it uses. */
function gitHosts(): (type: GitProviderType) => Promise<GitHost> {
  const hosts = new Map<GitProviderType, Promise<GitHost>>();
  const load = async (type: GitProviderType): Promise<GitHost> => {
    switch (type) {
      case 'github':
        return (await import('../../promotion/github/index.js')).gitHubHost(GIT_HOST_SETTINGS);
      case 'gitlab':
        return (await import('../../promotion/gitlab/index.js')).gitLabHost(GIT_HOST_SETTINGS);
      case 'bitbucket-server':
        return (await import('../../promotion/bitbucket-server/index.js')).bitbucketServerHost(GIT_HOST_SETTINGS);
      case 'azure-devops':
        return (await import('../../promotion/azure-devops/index.js')).azureDevOpsHost(GIT_HOST_SETTINGS);
    }
  };
  return (type) => {
    let host = hosts.get(type);
    if (!host) {
      host = load(type);
      hosts.set(type, host);
    }
    return host;
  };
}

async function pipelinesOf(backend: Backend, key: ObjectKey | undefined): Promise<Pipeline[]> {
  if (!key) return (await listAll((page) => backend.store.listPipelines(page))).map((stored) => stored.pipeline);
  const stored = await backend.store.getPipeline(key);
  if (!stored) throw new CliError(`pipeline ${objectKeyString(key)} not found in ${backend.description}`);
  return [stored.pipeline];
}

const COLUMNS = [
  { header: 'PIPELINE' },
  { header: 'ENVIRONMENT' },
  { header: 'TARGET', max: 40 },
  { header: 'CHECK' },
  { header: 'RESULT' },
];

/**
 * One line per row, in columns, and the summary. The message comes last and is never cut: it names what to fix (a
 * long one runs past the table's width).
 */
export function checkTable(report: CheckReport): string[] {
  const lines = formatTable(
    COLUMNS,
    report.rows.map((row) => [
      row.pipeline,
      row.environment,
      row.target ? `${row.target.cluster} ${row.target.namespace}` : '',
      row.kind,
      row.outcome,
    ]),
  );
  const width = Math.max(...lines.map((line) => line.length));
  const messages = ['MESSAGE', ...report.rows.map((row) => row.message)];
  return [...lines.map((line, i) => `${line.padEnd(width)}  ${messages[i] ?? ''}`), '', summaryLine(report.summary)];
}

/** `12 checks: 10 ok, 1 failed, 1 warning, 0 skipped`. */
export function summaryLine(summary: CheckSummary): string {
  const total = summary.ok + summary.failed + summary.warning + summary.skipped;
  return (
    `${total} check${total === 1 ? '' : 's'}: ${summary.ok} ok, ${summary.failed} failed, ` +
    `${summary.warning} warning${summary.warning === 1 ? '' : 's'}, ${summary.skipped} skipped`
  );
}

/** The error a check with failed rows ends with (exit code 2), after its output. */
export function checkFailure(summary: CheckSummary): CliError | undefined {
  if (summary.failed === 0) return undefined;
  const rows = summary.failed === 1 ? '1 check failed' : `${summary.failed} checks failed`;
  return new CliError(`${rows}: a promotion would fail (see the rows marked failed)`, CHECK_FAILED_EXIT_CODE);
}
