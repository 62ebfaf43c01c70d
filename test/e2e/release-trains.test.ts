// Release trains end to end as a user runs them (docs/release-trains.md): `pipelinectl serve` as a child process,
// the management cluster as the default cluster, signed Flux events, and a fake GitHub and a fake GitLab driven by the
// product's real clients. Three pipelines of one group on GitLab are promoted in one merge request; three of one group
// that waits for all on GitHub open their one pull request only once the last of them is due, `status -o json`
// naming the member the others wait for meanwhile; merged, each member's prod is verified as usual.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadOrCreateMasterKeys } from '../../lib/local/data-dir.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { clusterWithKubeconfigYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { runPipelinectl, startServe } from '../local/serve-process.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';
import { startGitHubUnderTest } from '../promotion/github-support.js';
import { startGitLabUnderTest } from '../promotion/gitlab-support.js';
import { tempFiles } from '../support/temp-files.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';

const NAMESPACE = 'flux-system';
const MANAGEMENT = 'management';
const OLD = '6.0.0';
const NEW = '6.0.1';
const APPS = ['cart', 'checkout', 'web'];

interface Train {
  short: 'github' | 'gitlab';
  flag: string;
  waitForAll: boolean;
  fake: FakeHostUnderTest;
}

const pipelineName = (train: Train, app: string) => `${app}-${train.short}`;
/** The fleet repository's one file of the train: each member's version, marked for its prod. */
const FILE = 'apps/prod/shop.yaml';
const shop = (train: Train, versions: Record<string, string>) =>
  APPS.map(
    (app) => `${app}: "${versions[app] ?? OLD}" # {"$promotion": "${NAMESPACE}:${pipelineName(train, app)}:prod"}\n`,
  ).join('');

function pipelineYaml(train: Train, app: string): string {
  const name = pipelineName(train, app);
  return `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata:
  name: ${name}
  namespace: ${NAMESPACE}
spec:
  appRef:
    apiVersion: helm.toolkit.fluxcd.io/v2
    kind: HelmRelease
    name: podinfo
  environments:
    - name: dev
      targets:
        - namespace: dev-${name}
    - name: prod
      targets:
        - namespace: prod-${name}
  promotion:
    strategy:
      pull-request:
        type: ${train.short}
        url: ${train.fake.repositoryUrl}
        baseBranch: main
        secretRef:
          name: ${train.short}-credentials
        group: shop
${train.waitForAll ? '        waitForAll: true\n' : ''}`;
}

interface StatusJson {
  pipelines: {
    name: string;
    environments: { name: string; state: string; waitsForMembers: string[] | null }[];
  }[];
}

describe('release trains through pipelinectl serve', () => {
  it('promotes three pipelines of one group in one pull request, on GitLab and on GitHub', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    const trains: Train[] = [
      { short: 'gitlab', flag: '--gitlab-api-url', waitForAll: false, fake: await startGitLabUnderTest() },
      { short: 'github', flag: '--github-api-url', waitForAll: true, fake: await startGitHubUnderTest() },
    ];
    for (const train of trains) {
      t.after(() => train.fake.stop());
      train.fake.createRepository({ [FILE]: shop(train, {}), 'README.md': '# fleet\n' });
      for (const app of APPS) {
        for (const env of ['dev', 'prod']) kube.put(helmReleaseRunning(`${env}-${pipelineName(train, app)}`, OLD));
      }
    }
    const root = await tempFiles(t, {
      'config/cluster.yaml': clusterWithKubeconfigYaml(MANAGEMENT, kube.kubeconfig(), NAMESPACE),
      'config/credentials.yaml': yamlDocuments(
        ...trains.map((train) => secretYaml(`${train.short}-credentials`, train.fake.secretValues, NAMESPACE)),
      ),
      'config/pipelines.yaml': yamlDocuments(...trains.flatMap((train) => APPS.map((app) => pipelineYaml(train, app)))),
    });
    const dataDir = join(root, 'data');
    const serve = await startServe(
      t,
      [
        ...['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1s'],
        ...['--default-cluster', `${NAMESPACE}/${MANAGEMENT}`],
        ...trains.flatMap((train) => [train.flag, train.fake.apiUrl]),
      ],
      { timeoutMs: 30_000 },
    );
    const key = deriveClusterKey((await loadOrCreateMasterKeys(dataDir)).current, {
      namespace: NAMESPACE,
      name: MANAGEMENT,
    });
    /** Flux upgrades the app's dev and reports it, signed with the cluster's key. */
    const devUpgraded = async (train: Train, app: string) => {
      const stored = kube.put(helmReleaseRunning(`dev-${pipelineName(train, app)}`, NEW));
      const body = helmReleaseEvent(stored, NEW);
      const response = await fetch(`${serve.receiverUrl}/v1/events/${NAMESPACE}/${MANAGEMENT}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'gotk-component': 'helm-controller',
          'x-signature': signatureHeader(body, key),
        },
        body,
      });
      await response.arrayBuffer();
      assert.equal(response.status, 202);
    };
    const status = async (): Promise<StatusJson> =>
      JSON.parse(
        (await runPipelinectl(['status', '-o', 'json', '--data-dir', dataDir], { timeoutMs: 30_000 })).stdout,
      ) as StatusJson;
    const prodOf = (json: StatusJson, train: Train, app: string) =>
      json.pipelines.find((pipeline) => pipeline.name === pipelineName(train, app))?.environments[1];
    const [gitlab, github] = trains as [Train, Train];

    // GitHub's train waits for all: two members due, the third still on OLD in dev.
    await devUpgraded(github, 'cart');
    await devUpgraded(github, 'checkout');
    // GitLab's does not: each member joins the group's merge request as it comes due.
    for (const app of APPS) await devUpgraded(gitlab, app);

    const everyMember = (train: Train) =>
      train.fake
        .pullRequests()
        .find((pull) =>
          APPS.every((app) => pull.body.includes(`- ${NAMESPACE}/${pipelineName(train, app)}: **${NEW}**`)),
        );
    const mergeRequest = await waitFor('the GitLab merge request holding every member', () => everyMember(gitlab));
    assert.equal(gitlab.fake.pullRequests().length, 1, 'one merge request for the group');
    assert.equal(mergeRequest.title, 'Promote group shop in prod (3 apps)');
    assert.equal(mergeRequest.source, 'promotion-group-shop-prod');

    const waiting = await waitFor('the GitHub train waiting for web', async () => {
      const json = await status();
      const prods = ['cart', 'checkout'].map((app) => prodOf(json, github, app));
      return prods.every((prod) => prod?.state === 'waiting-group') ? prods : undefined;
    });
    for (const prod of waiting) assert.deepEqual(prod?.waitsForMembers, [`${NAMESPACE}/web-github`]);
    const explained = await runPipelinectl(['explain', `${NAMESPACE}/cart-github`, '--data-dir', dataDir], {
      timeoutMs: 30_000,
    });
    assert.match(explained.stdout, /waits for .*flux-system\/web-github/);
    assert.equal(github.fake.pullRequests().length, 0, 'no pull request while a member is not due');

    await devUpgraded(github, 'web');
    const pull = await waitFor('the GitHub pull request holding every member', () => everyMember(github));
    assert.equal(github.fake.pullRequests().length, 1, 'one pull request for the group');
    for (const train of trains) {
      assert.deepEqual(
        train.fake.files('promotion-group-shop-prod'),
        { [FILE]: shop(train, { cart: NEW, checkout: NEW, web: NEW }), 'README.md': '# fleet\n' },
        `${train.short}: every member's marked value, and nothing else`,
      );
    }

    // Merged, each member is verified as usual: its prod rolls out, then passes.
    github.fake.merge(pull.url);
    await waitFor('every GitHub member promoted', async () => {
      const json = await status();
      return APPS.every((app) => prodOf(json, github, app)?.state === 'promoted');
    });
    for (const app of APPS) kube.put(helmReleaseRunning(`prod-${pipelineName(github, app)}`, NEW));
    await waitFor('every GitHub member passed in prod', async () => {
      const json = await status();
      return APPS.every((app) => prodOf(json, github, app)?.state === 'passed');
    });
    assert.equal(github.fake.pullRequests().length, 1, 'nothing proposed again');

    const stopped = await serve.stop('SIGTERM');
    assert.equal(stopped.code, 0, stopped.stderr);
  });
});
