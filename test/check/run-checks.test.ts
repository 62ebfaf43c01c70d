// checkPipelines on scripted clusters and a fake GitHub driven by the real adapter: which environments get which rows
// and in what order, what each Git failure makes of the rows, the notification sinks' answers, and that shared reads
// (a target in two environments, a repository of several environments) are made once and failures stay in their rows.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { checkPipelines, type CheckPorts, type CheckRow, type NotificationSinksAnswer } from '../../lib/check/index.js';
import type { Pipeline, PipelineEnvironment } from '../../lib/pipeline/model.js';
import type { PullRequestPromotion } from '../../lib/pipeline/promotion.js';
import { gitHubHost } from '../../lib/promotion/github/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { clusterFault, ScriptedClusters } from '../../lib/testing/scripted-clusters.js';

const NAMESPACE = 'flux-system';
const DEV = { namespace: NAMESPACE, name: 'dev' };
const PROD = { namespace: NAMESPACE, name: 'prod' };
const URL = 'https://github.com/acme/fleet';
const marked = (env: string, name = 'podinfo') => `version: "1.0.0" # {"$promotion": "${NAMESPACE}:${name}:${env}"}\n`;

const pullRequest = (overrides: Partial<PullRequestPromotion> = {}): PipelineEnvironment['promotion'] => ({
  strategy: {
    'pull-request': { type: 'github', url: URL, baseBranch: 'main', secretRef: { name: 'github' }, ...overrides },
  },
});
const notification: PipelineEnvironment['promotion'] = { strategy: { notification: {} } };

function pipeline(environments: PipelineEnvironment[], name = 'podinfo', extra: Partial<Pipeline> = {}): Pipeline {
  return {
    namespace: NAMESPACE,
    name,
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name },
    environments,
    ...extra,
  };
}

const env = (
  name: string,
  targets: Pipeline['environments'][number]['targets'],
  promotion?: PipelineEnvironment['promotion'],
) => ({
  name,
  targets,
  ...(promotion ? { promotion } : {}),
});

/** Each row as `environment kind outcome reason`. */
const brief = (rows: readonly CheckRow[]) =>
  rows.map((row) => `${row.environment} ${row.kind} ${row.outcome} ${row.reason}`);
const rowOf = (rows: readonly CheckRow[], environment: string, kind: CheckRow['kind']) => {
  const row = rows.find((candidate) => candidate.environment === environment && candidate.kind === kind);
  assert.ok(row, `a ${kind} row for ${environment}`);
  return row;
};

describe('checkPipelines', () => {
  let github: FakeGitHub;
  let clusters: ScriptedClusters;
  let secrets: StaticSecretSource;
  let sinks: (() => Promise<NotificationSinksAnswer>) | undefined;

  before(async () => {
    github = await FakeGitHub.start();
    github.createRepository('acme', 'fleet', {
      'apps/staging/podinfo.yaml': marked('staging'),
      'apps/prod/podinfo.yaml': marked('prod'),
      // The same content at two paths (one blob), and a marker in a file that is not YAML (never looked at).
      'apps/prod/copy.yml': marked('prod'),
      'README.md': marked('qa'),
    });
    // Markers that are near misses of others, and a production file copied from qa with the qa marker left in.
    const holding = (...markers: string[]) =>
      markers.map((marker, i) => `value${i}: "1.0.0" # {"$promotion": "${marker}"}\n`).join('');
    github.createRepository('acme', 'near', {
      'apps/dev/podinfo.yaml': holding('flux-system:podinfo:dev'),
      'apps/production/podinfo.yaml': holding('flux-system:podinfo:production'),
      'apps/staging/podinfx.yaml': holding('flux-system:podinfx:staging'),
      'apps/qa/podinfo.yaml': holding('default:podinfo:qa'),
      'apps/qa/checkout.yaml': holding('flux-system:checkout:qa'),
      'apps/prod/checkout.yaml': holding('flux-system:checkout:prod', 'flux-system:checkout:qa'),
      'apps/qa/cart.yaml': holding('flux-system:cart:qa'),
      'apps/prod/cart.yaml': holding('flux-system:cart:qa'),
    });
  });
  after(() => github.stop());

  beforeEach(() => {
    clusters = new ScriptedClusters();
    for (const cluster of [DEV, PROD]) {
      for (const namespace of ['dev', 'staging', 'prod', 'qa']) {
        clusters.put(
          { cluster, kind: 'HelmRelease', namespace, name: 'podinfo' },
          { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' },
        );
      }
    }
    secrets = new StaticSecretSource([
      { key: { namespace: NAMESPACE, name: 'github' }, values: { token: github.token } },
    ]);
    sinks = undefined;
    github.resetRequests();
  });

  const ports = (overrides: Partial<CheckPorts> = {}): CheckPorts => ({
    clusters,
    secrets,
    gitHost: (type) => Promise.resolve(type === 'github' ? gitHubHost({ retries: 0 }) : undefined),
    gitApiUrls: { github: github.url },
    notificationSinks: sinks,
    ...overrides,
  });

  it('environment by environment: targets first, then how it is promoted into; the first one is not promoted into', async () => {
    const rows = await checkPipelines(
      [
        pipeline([
          env('dev', [{ cluster: DEV, namespace: 'dev' }], pullRequest()),
          env('staging', [{ cluster: PROD, namespace: 'staging' }], pullRequest()),
          env('qa', [{ cluster: PROD, namespace: 'qa' }]),
          env(
            'prod',
            [
              { cluster: PROD, namespace: 'prod' },
              { cluster: DEV, namespace: 'prod' },
            ],
            notification,
          ),
        ]),
      ],
      ports(),
    );
    assert.deepEqual(brief(rows), [
      'dev cluster-reachable ok cluster-answered',
      'dev app-object ok app-found',
      'staging cluster-reachable ok cluster-answered',
      'staging app-object ok app-found',
      'staging git-repository ok repository-readable',
      'staging git-permissions ok can-push',
      'staging base-branch ok branch-exists',
      'staging markers ok markers-found',
      // qa has no strategy: nothing promotes into it, so only its target is checked.
      'qa cluster-reachable ok cluster-answered',
      'qa app-object ok app-found',
      'prod cluster-reachable ok cluster-answered',
      'prod app-object ok app-found',
      'prod cluster-reachable ok cluster-answered',
      'prod app-object ok app-found',
      // No sink port: the deployment cannot say.
      'prod notification-sinks warning sinks-unknown',
    ]);
    assert.deepEqual(
      rows.map((row) => row.pipeline),
      rows.map(() => `${NAMESPACE}/podinfo`),
    );
    assert.deepEqual(rowOf(rows, 'staging', 'markers').files, ['apps/staging/podinfo.yaml']);
  });

  it('a pipeline with a source: the source is checked, and its first environment is promoted into too', async () => {
    const rows = await checkPipelines(
      [
        pipeline([env('dev', [{ cluster: DEV, namespace: 'dev' }], notification)], 'podinfo', {
          source: { cluster: DEV, kind: 'OCIRepository', namespace: 'flux-system', name: 'podinfo' },
        }),
      ],
      ports(),
    );
    assert.deepEqual(brief(rows).slice(2), [
      'dev cluster-reachable ok cluster-answered',
      'dev source-object failed source-absent',
      'dev notification-sinks warning sinks-unknown',
    ]);
  });

  it('a block naming both strategies is carried out by the pull request; the files holding the marker are all named', async () => {
    const both = { strategy: { ...pullRequest()?.strategy, notification: {} } };
    const rows = await checkPipelines([pipeline([env('dev', []), env('prod', [], both)])], ports());
    assert.deepEqual(brief(rows), [
      'prod git-repository ok repository-readable',
      'prod git-permissions ok can-push',
      'prod base-branch ok branch-exists',
      'prod markers ok markers-found',
    ]);
    const markers = rowOf(rows, 'prod', 'markers');
    assert.deepEqual(markers.files, ['apps/prod/copy.yml', 'apps/prod/podinfo.yaml']);
    assert.equal(
      markers.message,
      '{"$promotion": "flux-system:podinfo:prod"} in 2 files: apps/prod/copy.yml, apps/prod/podinfo.yaml',
    );
    assert.equal(
      github.count('GET /repos/{owner}/{repo}/git/blobs/{file_sha}'),
      2,
      'the one blob of two paths is read once',
    );
  });

  const gitFailures: {
    name: string;
    promotion?: Partial<PullRequestPromotion>;
    values?: Record<string, string>;
    fault?: () => void;
    expected: string[];
    message: RegExp;
  }[] = [
    {
      name: 'a Secret that does not exist',
      promotion: { secretRef: { name: 'nope' } },
      expected: [
        'git-repository failed secret-missing',
        'git-permissions skipped',
        'base-branch skipped',
        'markers skipped',
      ],
      message:
        /^Secret flux-system\/nope not found: the github pull-request strategy needs the key "token", or the GitHub App keys/,
    },
    {
      name: 'a Secret without credentials',
      values: { username: 'someone' },
      expected: [
        'git-repository failed credentials-unusable',
        'git-permissions skipped',
        'base-branch skipped',
        'markers skipped',
      ],
      message: /^Secret flux-system\/github has no GitHub credentials: it needs the key "token"/,
    },
    {
      name: 'a token GitHub rejects',
      values: { token: 'ghp_not_a_token_github_knows' },
      expected: [
        'git-repository failed repository-unreadable',
        'git-permissions skipped',
        'base-branch skipped',
        'markers skipped',
      ],
      message: /401 Bad credentials: GitHub rejected the credentials of Secret flux-system\/github$/,
    },
    {
      name: 'a repository that does not exist (or the token cannot see)',
      promotion: { url: 'https://github.com/acme/elsewhere' },
      expected: [
        'git-repository failed repository-unreadable',
        'git-permissions skipped',
        'base-branch skipped',
        'markers skipped',
      ],
      message: /404 Not Found: it does not exist, or the credentials of Secret flux-system\/github cannot see it$/,
    },
    {
      name: 'a base branch that does not exist',
      promotion: { baseBranch: 'release' },
      expected: ['git-repository ok', 'git-permissions ok', 'base-branch failed branch-missing', 'markers skipped'],
      message:
        /^the base branch release does not exist in https:\/\/github\.com\/acme\/fleet, or Secret flux-system\/github cannot see it$/,
    },
    {
      name: 'a tree GitHub fails to list',
      fault: () => github.failNext(404, { route: 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}' }),
      expected: ['git-repository ok', 'git-permissions ok', 'base-branch ok', 'markers failed scan-failed'],
      message: /GitHub API GET \/api\/v3\/repos\/acme\/fleet\/git\/trees\/[0-9a-f]+: 404 /,
    },
  ];
  for (const { name, promotion, values, fault, expected, message } of gitFailures) {
    it(`${name}: ${expected.join(', ')}`, async () => {
      if (values) secrets.set({ namespace: NAMESPACE, name: 'github' }, values);
      fault?.();
      const rows = await checkPipelines([pipeline([env('dev', []), env('prod', [], pullRequest(promotion))])], ports());
      assert.deepEqual(
        rows.map(
          (row) =>
            `${row.kind} ${row.outcome}${row.outcome === 'ok' || row.outcome === 'skipped' ? '' : ` ${row.reason}`}`,
        ),
        expected,
      );
      const failed = rows.find((row) => row.outcome === 'failed');
      assert.match(failed?.message ?? '', message);
      assert.doesNotMatch(JSON.stringify(rows), new RegExp(github.token), 'no token in any row');
    });
  }

  it('a read-only token: git-permissions fails, and the rest is still checked', async () => {
    github.addToken('ghp_read_only', { readOnly: true });
    secrets.set({ namespace: NAMESPACE, name: 'github' }, { token: 'ghp_read_only' });
    const rows = await checkPipelines([pipeline([env('dev', []), env('prod', [], pullRequest())])], ports());
    assert.deepEqual(brief(rows), [
      'prod git-repository ok repository-readable',
      'prod git-permissions failed cannot-push',
      'prod base-branch ok branch-exists',
      'prod markers ok markers-found',
    ]);
  });

  it('deployments: true adds a git-deployments row saying which permission is missing', async () => {
    const deploying = pipeline([env('dev', []), env('prod', [], pullRequest({ deployments: true }))]);
    const unknown = await checkPipelines([deploying], ports());
    assert.deepEqual(brief(unknown).slice(0, 3), [
      'prod git-repository ok repository-readable',
      'prod git-permissions ok can-push',
      'prod git-deployments warning deployments-unknown',
    ]);
    assert.match(rowOf(unknown, 'prod', 'git-deployments').message, /Deployments: read and write/);

    github.addToken('ghp_read_only', { readOnly: true });
    secrets.set({ namespace: NAMESPACE, name: 'github' }, { token: 'ghp_read_only' });
    const refused = await checkPipelines([deploying], ports());
    const row = rowOf(refused, 'prod', 'git-deployments');
    assert.equal(`${row.outcome} ${row.reason}`, 'failed cannot-record-deployments');
    assert.match(
      row.message,
      /cannot record deployments on https:\/\/github\.com\/acme\/fleet.*missing Deployments: read and write/,
    );

    const withoutDeployments = await checkPipelines(
      [pipeline([env('dev', []), env('prod', [], pullRequest())])],
      ports(),
    );
    assert.equal(
      withoutDeployments.some((candidate) => candidate.kind === 'git-deployments'),
      false,
    );
  });

  it('no marker for the environment: the row names it and says no file holds ns:name:env', async () => {
    const rows = await checkPipelines([pipeline([env('dev', []), env('qa', [], pullRequest())])], ports());
    assert.equal(
      rowOf(rows, 'qa', 'markers').message,
      'no file holds {"$promotion": "flux-system:podinfo:qa"} in https://github.com/acme/fleet at main: a promotion to qa would fail',
    );
  });

  const NEAR = 'https://github.com/acme/near';
  const missing = (marker: string, env: string) =>
    `no file holds {"$promotion": "${marker}"} in ${NEAR} at main: a promotion to ${env} would fail`;
  const markerHints: {
    name: string;
    pipeline: string;
    environments: string[];
    /** The environment whose markers row is looked at. */
    environment: string;
    outcome: string;
    message: string;
    nearMisses?: CheckRow['nearMisses'];
    mixedFiles?: CheckRow['mixedFiles'];
    misplacedFiles?: CheckRow['misplacedFiles'];
  }[] = [
    {
      name: 'prod missing, production found: the near miss is named',
      pipeline: 'podinfo',
      environments: ['dev', 'prod'],
      environment: 'prod',
      outcome: 'failed no-marker',
      message: `${missing('flux-system:podinfo:prod', 'prod')}; found flux-system:podinfo:production in apps/production/podinfo.yaml`,
      nearMisses: [{ marker: 'flux-system:podinfo:production', files: ['apps/production/podinfo.yaml'] }],
    },
    {
      name: 'the same environment under a pipeline name one letter off',
      pipeline: 'podinfo',
      environments: ['dev', 'staging'],
      environment: 'staging',
      outcome: 'failed no-marker',
      message: `${missing('flux-system:podinfo:staging', 'staging')}; found flux-system:podinfx:staging in apps/staging/podinfx.yaml`,
      nearMisses: [{ marker: 'flux-system:podinfx:staging', files: ['apps/staging/podinfx.yaml'] }],
    },
    {
      name: 'the same pipeline and environment under another namespace',
      pipeline: 'podinfo',
      environments: ['dev', 'qa'],
      environment: 'qa',
      outcome: 'failed no-marker',
      message: `${missing('flux-system:podinfo:qa', 'qa')}; found default:podinfo:qa in apps/qa/podinfo.yaml`,
      nearMisses: [{ marker: 'default:podinfo:qa', files: ['apps/qa/podinfo.yaml'] }],
    },
    {
      name: 'nothing near: no hint',
      pipeline: 'podinfo',
      environments: ['dev', 'canary'],
      environment: 'canary',
      outcome: 'failed no-marker',
      message: missing('flux-system:podinfo:canary', 'canary'),
    },
    {
      name: "another environment of the pipeline is no near miss: it is that environment's marker",
      pipeline: 'podinfo',
      environments: ['dev', 'production', 'prod'],
      environment: 'prod',
      outcome: 'failed no-marker',
      message: missing('flux-system:podinfo:prod', 'prod'),
    },
    {
      name: "a production file that also holds qa's marker: a warning on prod",
      pipeline: 'checkout',
      environments: ['dev', 'qa', 'prod'],
      environment: 'prod',
      outcome: 'warning mixed-environments',
      message:
        '{"$promotion": "flux-system:checkout:prod"} in 1 file: apps/prod/checkout.yaml; apps/prod/checkout.yaml also ' +
        "holds flux-system:checkout:qa: a promotion to prod would edit another environment's file (a copy-paste mistake?)",
      mixedFiles: [{ path: 'apps/prod/checkout.yaml', markers: ['flux-system:checkout:qa'] }],
    },
    {
      name: 'and on qa, whose marker sits in the production file too',
      pipeline: 'checkout',
      environments: ['dev', 'qa', 'prod'],
      environment: 'qa',
      outcome: 'warning mixed-environments',
      message:
        '{"$promotion": "flux-system:checkout:qa"} in 2 files: apps/prod/checkout.yaml, apps/qa/checkout.yaml; ' +
        "apps/prod/checkout.yaml also holds flux-system:checkout:prod; apps/prod/checkout.yaml is in prod's place " +
        "(its path names prod): a promotion to qa would edit another environment's file (a copy-paste mistake?)",
      mixedFiles: [{ path: 'apps/prod/checkout.yaml', markers: ['flux-system:checkout:prod'] }],
      misplacedFiles: [{ path: 'apps/prod/checkout.yaml', environment: 'prod' }],
    },
    {
      name: "qa's marker alone in a production file: a warning on qa, whose row passed",
      pipeline: 'cart',
      environments: ['dev', 'qa', 'prod'],
      environment: 'qa',
      outcome: 'warning misplaced-marker',
      message:
        '{"$promotion": "flux-system:cart:qa"} in 2 files: apps/prod/cart.yaml, apps/qa/cart.yaml; ' +
        "apps/prod/cart.yaml is in prod's place (its path names prod): a promotion to qa would edit another " +
        "environment's file (a copy-paste mistake?)",
      misplacedFiles: [{ path: 'apps/prod/cart.yaml', environment: 'prod' }],
    },
    {
      name: "and prod, whose marker is missing, is told where qa's sits",
      pipeline: 'cart',
      environments: ['dev', 'qa', 'prod'],
      environment: 'prod',
      outcome: 'failed no-marker',
      message: `${missing('flux-system:cart:prod', 'prod')}; found flux-system:cart:qa in apps/prod/cart.yaml`,
      nearMisses: [{ marker: 'flux-system:cart:qa', files: ['apps/prod/cart.yaml'] }],
    },
  ];
  for (const hint of markerHints) {
    it(`markers: ${hint.name}`, async () => {
      const environments = hint.environments.map((name, i) =>
        env(name, [], i === 0 ? undefined : pullRequest({ url: NEAR })),
      );
      const rows = await checkPipelines([pipeline(environments, hint.pipeline)], ports());
      const row = rowOf(rows, hint.environment, 'markers');
      assert.equal(`${row.outcome} ${row.reason}`, hint.outcome);
      assert.equal(row.message, hint.message);
      assert.deepEqual(row.nearMisses, hint.nearMisses);
      assert.deepEqual(row.mixedFiles, hint.mixedFiles);
      assert.deepEqual(row.misplacedFiles, hint.misplacedFiles);
    });
  }

  const sinkAnswers: [string, (() => Promise<NotificationSinksAnswer>) | undefined, string, RegExp][] = [
    [
      'sinks configured',
      () => Promise.resolve({ known: true, kinds: ['webhook', 'event-bus'], remedy: 'r' }),
      'ok sinks-configured',
      /^notification sinks: webhook, event-bus$/,
    ],
    [
      'no sink',
      () => Promise.resolve({ known: true, kinds: [], remedy: 'start serve with a sink' }),
      'failed no-sinks',
      /^no notification sink is configured: a promotion to prod would fail for good \(start serve with a sink\)$/,
    ],
    [
      'cannot be told',
      () =>
        Promise.resolve({
          known: false,
          reason: 'pipelinectl serve is not running',
          remedy: 'start serve with a sink',
        }),
      'warning sinks-unknown',
      /^cannot tell whether a notification sink is configured \(pipelinectl serve is not running\); without one/,
    ],
    ['not said by the deployment', undefined, 'warning sinks-unknown', /this deployment does not say$/],
    [
      'a failure to say',
      () => Promise.reject(new Error('stack outputs unreadable')),
      'warning sinks-unknown',
      /\(stack outputs unreadable\)/,
    ],
  ];
  for (const [name, answer, expected, message] of sinkAnswers) {
    it(`notification sinks ${name}: ${expected}, asked once for every environment`, async () => {
      let asked = 0;
      sinks = answer && (() => (asked++, answer()));
      const rows = await checkPipelines(
        [pipeline([env('dev', []), env('staging', [], notification), env('prod', [], notification)])],
        ports(),
      );
      assert.deepEqual(
        rows.map((row) => `${row.outcome} ${row.reason}`),
        [expected, expected],
      );
      assert.match(rowOf(rows, 'prod', 'notification-sinks').message, message);
      assert.equal(asked, answer ? 1 : 0);
    });
  }

  it('shared reads are made once: a target in two environments, a repository and its scan for two environments', async () => {
    const shared = { cluster: PROD, namespace: 'prod' };
    const rows = await checkPipelines(
      [pipeline([env('dev', [shared]), env('staging', [shared], pullRequest()), env('prod', [shared], pullRequest())])],
      ports(),
    );
    assert.equal(rows.filter((row) => row.outcome !== 'ok').length, 0, JSON.stringify(rows, null, 1));
    assert.equal(clusters.calls.length, 1, 'the shared target is read once');
    assert.equal(github.count('GET /repos/{owner}/{repo}'), 1, 'the repository is opened once');
    assert.equal(github.count('GET /repos/{owner}/{repo}/git/ref/{ref}'), 1, 'its base branch read once');
    assert.equal(github.count('GET /repos/{owner}/{repo}/git/trees/{tree_sha}'), 1, 'and its files listed once');
  });

  it('one cluster failing fails its rows only: every other target and environment is still checked', async () => {
    clusters.failGet(
      { cluster: DEV, kind: 'HelmRelease', namespace: 'dev', name: 'podinfo' },
      clusterFault('unreachable', 'cluster flux-system/dev: cannot reach https://dev.example.com (ECONNREFUSED)'),
    );
    clusters.put(
      { cluster: PROD, kind: 'HelmRelease', namespace: 'dev', name: 'other' },
      { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' },
    );
    const rows = await checkPipelines(
      [
        pipeline([
          env('dev', [{ cluster: DEV, namespace: 'dev' }]),
          env('prod', [{ cluster: PROD, namespace: 'prod' }], pullRequest()),
        ]),
        pipeline([env('dev', [{ cluster: PROD, namespace: 'dev' }])], 'other'),
      ],
      ports({ concurrency: 1 }),
    );
    assert.deepEqual(
      rows
        .filter((row) => row.outcome !== 'ok')
        .map((row) => `${row.pipeline} ${row.environment} ${row.kind} ${row.outcome}`),
      ['flux-system/podinfo dev cluster-reachable failed', 'flux-system/podinfo dev app-object skipped'],
    );
    assert.equal(rows.length, 2 + 2 + 4 + 2);
  });

  it('a Git host this deployment has no adapter for fails the repository row', async () => {
    const rows = await checkPipelines(
      [
        pipeline([
          env('dev', []),
          env('prod', [], pullRequest({ type: 'gitlab', url: 'https://gitlab.example.com/acme/fleet' })),
        ]),
      ],
      ports(),
    );
    assert.equal(rowOf(rows, 'prod', 'git-repository').reason, 'host-unsupported');
  });
});
