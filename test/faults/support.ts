// Shared set-up of the fault suite: the core loop of test/loop/harness.ts promoting through pull requests against
// the fake GitHub, what a user reads back (`pipelinectl status`/`explain`: records, statuses, the decision), and the
// Flux objects and events of the faults themselves.
import type { TestContext } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { loadPipelineView, type EnvironmentView } from '../../lib/views/pipeline-view.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import { GitHubPullRequestPromoter } from '../../lib/testing/github-pull-request-promoter.js';
import { StrategyPromoter } from '../../lib/promotion/index.js';
import { podinfoReleaseYaml } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import type { DecisionReads } from '../../lib/pipeline-state/decide-with-reads.js';
import type { PipelineStateReader } from '../../lib/pipeline-state/pipeline-state.js';
import type { Logger } from '../../lib/logging/logger.js';
import { condition, HR_GENERATION } from '../fixtures/flux-objects.js';
import { PIPELINE, deployed, pipelineDocument, startLoop, type LoopOptions } from '../loop/harness.js';

export const OWNER = 'acme';
export const REPO = 'fleet';
/** The route of "open a pull request": how many times the effect itself was attempted. */
export const OPEN_PULL_REQUEST = 'POST /repos/{owner}/{repo}/pulls';

const pullRequest = {
  type: 'github' as const,
  url: `https://github.com/${OWNER}/${REPO}`,
  baseBranch: 'main',
  secretRef: { name: 'github' },
};

/** The harness's pipeline (dev → prod, prod on two namespaces of one cluster), promoting by pull request. */
export const pullRequestPipeline: PipelineDocument = {
  ...pipelineDocument,
  spec: {
    ...pipelineDocument.spec,
    promotion: { strategy: { 'pull-request': pullRequest, secretRef: { name: 'webhook-hmac' } } },
  },
};

/** A HelmRelease manifest of the fleet repository, its chart version marked for `env`. */
export function releaseManifest(env: string, version: string): string {
  return podinfoReleaseYaml('apps', env, version);
}

export interface GitHubLoopOptions extends Omit<LoopOptions, 'promoter' | 'secrets'> {
  /** The environments whose manifests the repository holds, each at 6.9.1. Default those of the pipeline. */
  environments?: readonly string[];
}

/**
 * The loop with the real GitHub pull-request strategy against a fake GitHub holding the fleet repository. Octokit's
 * in-call retries are kept (two of them) but made fast, so that a fault outlasting them is quick to stage.
 */
export async function startGitHubLoop(t: TestContext, options: GitHubLoopOptions = {}) {
  const github = await new FakeGitHub().start();
  t.after(() => github.stop());
  const pipeline = options.pipeline ?? pullRequestPipeline;
  const environments = options.environments ?? pipeline.spec.environments.map((env) => env.name);
  github.createRepository(
    OWNER,
    REPO,
    Object.fromEntries(environments.map((env) => [`clusters/${env}/podinfo.yaml`, releaseManifest(env, '6.9.1')])),
  );
  const loop = await startLoop(t, {
    ...options,
    pipeline,
    secrets: { github: { token: github.token } },
    promoter: (secrets) =>
      new StrategyPromoter({
        pullRequest: new GitHubPullRequestPromoter({
          secrets,
          apiUrl: github.url,
          writeIntervalMs: 0,
          retries: IN_CALL_RETRIES,
          retryBaseDelayMs: 10,
          logger: options.logger,
        }),
      }),
  });
  return { loop, github, pulls: () => github.pulls(OWNER, REPO) };
}

/** Octokit's retries of a 5xx inside one promotion attempt (in the loop above). */
export const IN_CALL_RETRIES = 2;

/** Each environment's state, reason and explanation, as `pipelinectl status` and `explain` show them now. */
export async function explain(
  store: PipelineStateReader & DecisionReads,
): Promise<Record<string, Pick<EnvironmentView, 'state' | 'reason' | 'message'>>> {
  const view = await loadPipelineView(store, PIPELINE, new Date());
  if (!view) throw new Error('the pipeline is not stored');
  return Object.fromEntries(
    view.environments.map(({ name, state, reason, message }) => [name, { state, reason, message }]),
  );
}

export const devApp: AppKey = {
  cluster: { namespace: 'flux-system', name: 'dev' },
  kind: 'HelmRelease',
  namespace: 'apps',
  name: 'podinfo',
};
export const prodApps: readonly AppKey[] = [
  { ...devApp, cluster: { namespace: 'flux-system', name: 'prod' } },
  { ...devApp, cluster: { namespace: 'flux-system', name: 'prod' }, namespace: 'apps-eu' },
];

/**
 * The HelmRelease still deploys `version` but is no longer healthy: its Helm tests failed on a later reconcile, so
 * Ready is False for the current generation (settled: Flux is done with this spec, and says it failed).
 */
export function regressed(version: string, namespace = 'apps'): Record<string, unknown> {
  const object = deployed(version, namespace) as { status: Record<string, unknown> };
  const message = `Helm test failed for release ${namespace}/podinfo with chart podinfo@${version}: pod podinfo-grpc-test failed`;
  object.status.conditions = [
    condition('Ready', 'False', 'TestFailed', message, HR_GENERATION),
    condition(
      'Released',
      'True',
      'UpgradeSucceeded',
      `Helm upgrade succeeded with chart podinfo@${version}`,
      HR_GENERATION,
    ),
    condition('TestSuccess', 'False', 'TestFailed', message, HR_GENERATION),
  ];
  return object;
}

/** The error event Flux's notification-controller posts when a HelmRelease action fails. Only a trigger. */
export function failureEvent(reason: 'UpgradeFailed' | 'TestFailed', version: string, namespace = 'apps'): string {
  const action = reason === 'UpgradeFailed' ? 'Helm upgrade' : 'Helm test';
  return JSON.stringify({
    involvedObject: { kind: 'HelmRelease', namespace, name: 'podinfo', apiVersion: 'helm.toolkit.fluxcd.io/v2' },
    severity: 'error',
    timestamp: '2026-11-21T12:30:05Z',
    message: `${action} failed for release ${namespace}/podinfo with chart podinfo@${version}`,
    reason,
    metadata: { revision: version },
    reportingController: 'helm-controller',
    reportingInstance: 'helm-controller-5f7d8c9b6-x2k4q',
  });
}

/** A logger that keeps every line, so a test can check what an operator would read in the logs. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (message: string, attributes?: Record<string, unknown>) => {
    lines.push(JSON.stringify({ level, message, ...attributes }));
  };
  return { lines, debug: keep('DEBUG'), info: keep('INFO'), warn: keep('WARN'), error: keep('ERROR') };
}
