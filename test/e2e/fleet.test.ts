// A fleet end to end, as a user runs it: `pipelinectl serve` as a child process, four leaf clusters (fake Kubernetes
// API servers), a fleet repository on a fake GitHub, signed Flux events, `pipelinectl approve`, Weave's `/approval`
// route and `pipelinectl status`. Two pipelines share the clusters:
//
// - podinfo, a HelmRelease from an OCI chart (`6.6.1+0cc9a8446c95`): dev → staging (manual) → prod, two targets
//   per environment, on one cluster in two namespaces or on two clusters;
// - platform, a Kustomization (`main@sha1:<40 hex>`): test → prod (manual), two clusters per environment.
//
// It proves that a manual environment asks for an approval (visible in `status`) and gets no pull request before it,
// then gets one after; that each pull request has Weave's title, branch and body and changes exactly the marked
// values of the marked files; that an automatic environment follows once the previous one runs the revision; and
// that there is exactly one pull request per (pipeline, environment, revision), recorded in `status`.
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { describe, it } from 'node:test';
import { pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import type { FakeGitHub, FakePullRequest } from '../../lib/testing/fake-github.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { commit, helmReleaseEvent, helmReleaseRunning, kustomizationApplied, kustomizationEvent } from './flux.js';
import { allTargetsRun, environmentOf, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

const OLD_CHART = '6.6.0+7d2f0c9e4b1a';
const NEW_CHART = '6.6.1+0cc9a8446c95';
const OLD_COMMIT = commit('platform v1');
const NEW_COMMIT = commit('platform v2');
const PLATFORM_HMAC_KEY = 'platform-approvals-key';

/** The podinfo chart of one target: an OCIRepository whose version carries the environment's marker. */
const podinfoManifest = (
  namespace: string,
  env: string,
  version: string,
) => `apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: OCIRepository
metadata:
  name: podinfo
  namespace: ${namespace}
spec:
  interval: 10m
  url: oci://ghcr.io/stefanprodan/charts/podinfo
  ref:
    # the chart this environment runs
    semver: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: ${namespace}
spec:
  interval: 10m
  chartRef: {kind: OCIRepository, name: podinfo}
  values:
    replicaCount: 2
`;

/** The platform Kustomization of a prod cluster: the revision it builds is a marked substitution. */
const platformManifest = (cluster: string, revision: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: platform
  namespace: flux-system
spec:
  interval: 10m
  path: ./platform
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substitute:
      cluster_name: ${cluster}
      platform_revision: '${revision}' # {"$promotion": "flux-system:platform:prod"}
`;

const REPOSITORY_FILES = {
  'README.md': '# fleet\n\nWhat every cluster runs.\n',
  'clusters/dev/podinfo.yaml': podinfoManifest('podinfo', 'dev', OLD_CHART), // set by CI, no marker for dev
  'clusters/staging/podinfo.yaml': podinfoManifest('podinfo', 'staging', OLD_CHART),
  'clusters/staging/podinfo-eu.yaml': podinfoManifest('podinfo-eu', 'staging', OLD_CHART),
  'clusters/prod-eu/podinfo.yaml': podinfoManifest('podinfo', 'prod', OLD_CHART),
  'clusters/prod-us/podinfo.yaml': podinfoManifest('podinfo', 'prod', OLD_CHART),
  'clusters/prod-eu/platform.yaml': platformManifest('prod-eu', OLD_COMMIT),
  'clusters/prod-us/platform.yaml': platformManifest('prod-us', OLD_COMMIT),
};

const pullRequest = { url: REPOSITORY_URL };
/** Targets, each given as `[cluster, namespace]`. */
const targets = (...pairs: [string, string][]) => pairs.map(([cluster, namespace]) => ({ namespace, cluster }));

const PIPELINES = yamlDocuments(
  pipelineYaml({
    name: 'podinfo',
    environments: [
      { name: 'dev', targets: targets(['dev', 'podinfo'], ['dev', 'podinfo-canary']) },
      { name: 'staging', targets: targets(['staging', 'podinfo'], ['staging', 'podinfo-eu']), manual: true },
      { name: 'prod', targets: targets(['prod-eu', 'podinfo'], ['prod-us', 'podinfo']) },
    ],
    strategy: pullRequest,
  }),
  pipelineYaml({
    name: 'platform',
    kind: 'Kustomization',
    environments: [
      { name: 'test', targets: targets(['dev', 'flux-system'], ['staging', 'flux-system']) },
      { name: 'prod', targets: targets(['prod-eu', 'flux-system'], ['prod-us', 'flux-system']), manual: true },
    ],
    strategy: pullRequest,
    hmacSecret: 'platform-webhook',
  }),
  secretYaml('platform-webhook', { 'hmac-key': PLATFORM_HMAC_KEY }),
);

const WEAVE_BODY = (pipeline: string, env: string) =>
  `<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\nflux-system/${pipeline}/${env}\n</details>`;

/** The open pull request whose head is `branch`, once there is one. */
function pullFor(github: FakeGitHub, branch: string): FakePullRequest | undefined {
  return github.pulls(OWNER, REPOSITORY).find((pull) => pull.head === branch);
}

/** A pull request as a user reviews it: what it says, and the files of its branch compared with the base. */
function assertPullRequest(
  github: FakeGitHub,
  pull: FakePullRequest,
  expected: { pipeline: string; env: string; revision: string; baseSha: string; changes: Record<string, string> },
): void {
  assert.equal(pull.title, `Promote flux-system/${expected.pipeline} in ${expected.env} to ${expected.revision}`);
  assert.equal(pull.head, `promotion-flux-system-${expected.pipeline}-${expected.env}`);
  assert.equal(pull.base, 'main');
  // Weave's body first, byte for byte, then the evidence (docs/evidence.md).
  assert.ok(pull.body.startsWith(`${WEAVE_BODY(expected.pipeline, expected.env)}\n\n### Evidence\n`), pull.body);
  assert.equal(pull.state, 'open');
  // One commit on top of the base, and only the marked files differ from the base, by exactly the marked values.
  assert.deepEqual(github.commit(OWNER, REPOSITORY, pull.headSha)?.parents, [expected.baseSha]);
  assert.equal(github.commit(OWNER, REPOSITORY, pull.headSha)?.message, 'promoting version');
  const base = github.files(OWNER, REPOSITORY, expected.baseSha);
  assert.deepEqual(github.files(OWNER, REPOSITORY, pull.head), { ...base, ...expected.changes });
}

describe('a fleet of two pipelines on four clusters, through pipelinectl serve', () => {
  it('asks for approvals, promotes only after them, then onwards; one pull request per promotion', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev', 'staging', 'prod-eu', 'prod-us'],
      repository: REPOSITORY_FILES,
      pipelines: PIPELINES,
      pollInterval: '1s',
    });
    const { github } = world;
    const dev = world.cluster('dev');
    const staging = world.cluster('staging');
    const prodEu = world.cluster('prod-eu');
    const prodUs = world.cluster('prod-us');
    for (const kube of [dev, staging, prodEu, prodUs]) kube.put(kustomizationApplied('platform', OLD_COMMIT));
    for (const namespace of ['podinfo', 'podinfo-canary']) dev.put(helmReleaseRunning(namespace, OLD_CHART));
    for (const namespace of ['podinfo', 'podinfo-eu']) staging.put(helmReleaseRunning(namespace, OLD_CHART));
    for (const kube of [prodEu, prodUs]) kube.put(helmReleaseRunning('podinfo', OLD_CHART));
    const initialMain = github.ref(OWNER, REPOSITORY, 'main') as string;

    // 1. serve starts and its first poll reads every target: the fleet is level, nothing to promote.
    const serve = await world.startServe();
    const runsOld = (pipeline: string) => (pipeline === 'podinfo' ? OLD_CHART : OLD_COMMIT);
    await waitFor('every target read', async () => allTargetsRun(await world.statusNow(), runsOld));

    // 2. CI ships a new chart and a new platform commit to the first environments, and Flux reports it.
    for (const namespace of ['podinfo', 'podinfo-canary']) {
      const stored = dev.put(helmReleaseRunning(namespace, NEW_CHART));
      assert.equal(await world.sendEvent('dev', helmReleaseEvent(stored, NEW_CHART), 'helm-controller'), 202);
    }
    for (const [name, kube] of [
      ['dev', dev],
      ['staging', staging],
    ] as const) {
      const stored = kube.put(kustomizationApplied('platform', NEW_COMMIT));
      assert.equal(await world.sendEvent(name, kustomizationEvent(stored, NEW_COMMIT), 'kustomize-controller'), 202);
    }

    // 3. Both manual environments wait for an approval, and get no pull request before it (two more polls).
    await waitFor('approval requests in podinfo staging and platform prod', async () => {
      const status = await world.statusNow();
      return (
        environmentOf(status, 'podinfo', 'staging').approval?.revision === NEW_CHART &&
        environmentOf(status, 'platform', 'prod').approval?.revision === NEW_COMMIT
      );
    });
    const listsThen = { staging: staging.count('list'), prodEu: prodEu.count('list') };
    await waitFor(
      'two more poll rounds',
      () => staging.count('list') >= listsThen.staging + 2 && prodEu.count('list') >= listsThen.prodEu + 2,
    );
    assert.deepEqual(github.pulls(OWNER, REPOSITORY), [], 'no pull request before an approval');
    assert.equal(
      github.count((request) => request.method !== 'GET'),
      0,
      'nothing written to GitHub',
    );

    const waiting = await world.statusCli();
    const podinfoStatus = waiting.pipelines.find((pipeline) => pipeline.name === 'podinfo');
    assert.equal(podinfoStatus?.candidate, NEW_CHART);
    assert.deepEqual(
      podinfoStatus.environments.map((env) => [
        env.name,
        env.state,
        env.targets.map((on) => `${on.cluster} ${on.namespace} ${on.revision}`),
      ]),
      [
        ['dev', 'source', [`flux-system/dev podinfo ${NEW_CHART}`, `flux-system/dev podinfo-canary ${NEW_CHART}`]],
        [
          'staging',
          'waiting-approval',
          [`flux-system/staging podinfo ${OLD_CHART}`, `flux-system/staging podinfo-eu ${OLD_CHART}`],
        ],
        [
          'prod',
          'not-reached',
          [`flux-system/prod-eu podinfo ${OLD_CHART}`, `flux-system/prod-us podinfo ${OLD_CHART}`],
        ],
      ],
    );
    const stagingWaiting = environmentOf(waiting, 'podinfo', 'staging');
    assert.equal(stagingWaiting.manual, true);
    assert.equal(stagingWaiting.approval?.waiting, true);
    assert.equal(stagingWaiting.approval.approvedBy, null);
    assert.deepEqual(stagingWaiting.promotions, []);
    assert.equal(environmentOf(waiting, 'platform', 'prod').state, 'waiting-approval');
    assert.equal(environmentOf(waiting, 'platform', 'prod').approval?.waiting, true);
    const table = await world.pipelinectl('status');
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^flux-system\/podinfo {2}HelmRelease podinfo {2}candidate 6\.6\.1\+0cc9a8446c95$/m);
    // The approve command to paste: exactly the revision shown, in the data directory status looked in.
    const approveCommand = `pipelinectl approve flux-system/podinfo staging --revision ${NEW_CHART} --data-dir ${world.dataDir}`;
    assert.ok(
      table.stdout
        .split('\n')
        .some(
          (line) =>
            /^ +approval: 6\.6\.1\+0cc9a8446c95 requested .+, waiting \(/.test(line) &&
            line.endsWith(`(${approveCommand})`),
        ),
      table.stdout,
    );

    // 4. Approvals: podinfo staging with pipelinectl approve, platform prod through Weave's /approval route.
    const approved = await world.pipelinectl('approve', 'flux-system/podinfo', 'staging');
    assert.equal(approved.code, 0, approved.stderr);
    const approver = `local:${userInfo().username}`;
    assert.equal(approved.stdout.trim(), `approved flux-system/podinfo staging ${NEW_CHART} as ${approver}`);
    assert.equal(await world.approveThroughWeave('platform', 'prod', NEW_COMMIT, PLATFORM_HMAC_KEY), 202);

    const stagingPull = await waitFor('the podinfo staging pull request', () =>
      pullFor(github, 'promotion-flux-system-podinfo-staging'),
    );
    assertPullRequest(github, stagingPull, {
      pipeline: 'podinfo',
      env: 'staging',
      revision: NEW_CHART,
      baseSha: initialMain,
      changes: {
        'clusters/staging/podinfo.yaml': podinfoManifest('podinfo', 'staging', NEW_CHART),
        'clusters/staging/podinfo-eu.yaml': podinfoManifest('podinfo-eu', 'staging', NEW_CHART),
      },
    });
    const platformPull = await waitFor('the platform prod pull request', () =>
      pullFor(github, 'promotion-flux-system-platform-prod'),
    );
    assertPullRequest(github, platformPull, {
      pipeline: 'platform',
      env: 'prod',
      revision: NEW_COMMIT,
      baseSha: initialMain,
      changes: {
        'clusters/prod-eu/platform.yaml': platformManifest('prod-eu', NEW_COMMIT),
        'clusters/prod-us/platform.yaml': platformManifest('prod-us', NEW_COMMIT),
      },
    });

    // 5. The pull requests are merged and Flux applies them: staging reports through events, platform prod is found
    // by the poll. podinfo prod is automatic: it gets its pull request, on top of the merged main.
    github.merge(OWNER, REPOSITORY, stagingPull.number);
    github.merge(OWNER, REPOSITORY, platformPull.number);
    for (const namespace of ['podinfo', 'podinfo-eu']) {
      const stored = staging.put(helmReleaseRunning(namespace, NEW_CHART));
      assert.equal(await world.sendEvent('staging', helmReleaseEvent(stored, NEW_CHART), 'helm-controller'), 202);
    }
    for (const kube of [prodEu, prodUs]) kube.put(kustomizationApplied('platform', NEW_COMMIT));
    const mergedMain = github.ref(OWNER, REPOSITORY, 'main') as string;
    const prodPull = await waitFor('the podinfo prod pull request', () =>
      pullFor(github, 'promotion-flux-system-podinfo-prod'),
    );
    assertPullRequest(github, prodPull, {
      pipeline: 'podinfo',
      env: 'prod',
      revision: NEW_CHART,
      baseSha: mergedMain,
      changes: {
        'clusters/prod-eu/podinfo.yaml': podinfoManifest('podinfo', 'prod', NEW_CHART),
        'clusters/prod-us/podinfo.yaml': podinfoManifest('podinfo', 'prod', NEW_CHART),
      },
    });

    // 6. prod runs it too: the whole fleet is on the new revisions, and nothing more happens (two more polls).
    github.merge(OWNER, REPOSITORY, prodPull.number);
    for (const kube of [prodEu, prodUs]) kube.put(helmReleaseRunning('podinfo', NEW_CHART));
    const runsNew = (pipeline: string) => (pipeline === 'podinfo' ? NEW_CHART : NEW_COMMIT);
    await waitFor('every target on the new revisions', async () => allTargetsRun(await world.statusNow(), runsNew));
    const writes = github.count((request) => request.method !== 'GET');
    const listsAtEnd = prodUs.count('list');
    await waitFor('two more poll rounds', () => prodUs.count('list') >= listsAtEnd + 2);
    assert.equal(
      github.count((request) => request.method !== 'GET'),
      writes,
      'no GitHub write once the fleet is level',
    );
    assert.deepEqual(
      github
        .pulls(OWNER, REPOSITORY)
        .map((pull) => [pull.head, pull.title, pull.merged])
        .sort(),
      [
        ['promotion-flux-system-platform-prod', `Promote flux-system/platform in prod to ${NEW_COMMIT}`, true],
        ['promotion-flux-system-podinfo-prod', `Promote flux-system/podinfo in prod to ${NEW_CHART}`, true],
        ['promotion-flux-system-podinfo-staging', `Promote flux-system/podinfo in staging to ${NEW_CHART}`, true],
      ],
      'exactly one pull request per (pipeline, environment, revision)',
    );

    const final = await world.statusCli();
    const promotions = (pipeline: string, env: string) =>
      environmentOf(final, pipeline, env).promotions.map(({ revision, state, attempts, result }) => ({
        revision,
        state,
        attempts,
        result,
      }));
    assert.deepEqual(promotions('podinfo', 'staging'), [
      { revision: NEW_CHART, state: 'succeeded', attempts: 1, result: stagingPull.htmlUrl },
    ]);
    assert.deepEqual(promotions('podinfo', 'prod'), [
      { revision: NEW_CHART, state: 'succeeded', attempts: 1, result: prodPull.htmlUrl },
    ]);
    assert.deepEqual(promotions('platform', 'prod'), [
      { revision: NEW_COMMIT, state: 'succeeded', attempts: 1, result: platformPull.htmlUrl },
    ]);
    assert.deepEqual(
      final.pipelines.map((pipeline) => [pipeline.name, pipeline.environments.map((env) => env.state)]),
      [
        ['platform', ['source', 'passed']],
        ['podinfo', ['source', 'passed', 'passed']],
      ],
    );
    // The approvals stay on record with who gave them.
    const approvals = [environmentOf(final, 'podinfo', 'staging'), environmentOf(final, 'platform', 'prod')].map(
      ({ approval }) => approval && { revision: approval.revision, waiting: approval.waiting, by: approval.approvedBy },
    );
    assert.deepEqual(approvals, [
      { revision: NEW_CHART, waiting: false, by: approver },
      { revision: NEW_COMMIT, waiting: false, by: 'hmac-key of Secret flux-system/platform-webhook' },
    ]);

    const stopped = await serve.stop('SIGTERM');
    assert.equal(stopped.code, 0, stopped.stderr);
    const secrets = [github.token, PLATFORM_HMAC_KEY, ...[dev, staging, prodEu, prodUs].map((kube) => kube.token)];
    for (const secret of secrets) assert.equal(`${stopped.stdout}${stopped.stderr}`.includes(secret), false);
  });
});
