// Weave's GitLab end-to-end pipeline, and its twins on Bitbucket Server and Azure DevOps, end to end as a user runs
// them: `pipelinectl serve` as a child process with each host's API base flag, the management cluster as the default
// cluster (Weave's e2e targets have no clusterRef), each host's fake driven by the product's real client, and signed
// Flux events. Each pipeline is promoted from dev to prod through a pull (merge) request on its own host, with
// Weave's branch, title and body and exactly the marked value changed, recorded in `pipelinectl status`; a repeated
// event makes no second one.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadOrCreateMasterKeys } from '../../lib/local/data-dir.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { pullRequestBody } from '../../lib/promotion/pull-request/index.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { clusterWithKubeconfigYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { runPipelinectl, startServe } from '../local/serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { startAzureDevOpsUnderTest } from '../promotion/azure-devops-support.js';
import { startBitbucketServerUnderTest } from '../promotion/bitbucket-server-support.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';
import { startGitLabUnderTest } from '../promotion/gitlab-support.js';
import { tempFiles } from '../support/temp-files.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';

const NAMESPACE = 'flux-system';
const MANAGEMENT = 'management';
const OLD = '6.0.0';
const NEW = '6.0.1';

const HOSTS: { type: GitProviderType; short: string; flag: string; start: () => Promise<FakeHostUnderTest> }[] = [
  { type: 'gitlab', short: 'gitlab', flag: '--gitlab-api-url', start: startGitLabUnderTest },
  {
    type: 'bitbucket-server',
    short: 'bitbucket',
    flag: '--bitbucket-server-api-url',
    start: startBitbucketServerUnderTest,
  },
  { type: 'azure-devops', short: 'azure', flag: '--azure-devops-api-url', start: startAzureDevOpsUnderTest },
];

/** Weave's e2e prod HelmRelease, marked for the pipeline `podinfo-<short>`. */
const prodHelmRelease = (short: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2beta1
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod-${short}
spec:
  interval: 1m
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo-${short}:prod"}
      sourceRef:
        kind: HelmRepository
        name: podinfo
        namespace: flux-system
`;

describe("Weave's GitLab e2e pipeline, and its Bitbucket Server and Azure DevOps twins, through pipelinectl serve", () => {
  it('promotes dev to prod through a pull request on each host, once', async (t) => {
    const weaveGitLab = await readFile(
      join(import.meta.dirname, '..', 'fixtures', 'weave', 'gitlab', 'pipeline.yaml'),
      'utf8',
    );
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    const hosts: ((typeof HOSTS)[number] & { fake: FakeHostUnderTest; pipeline: string })[] = [];
    for (const host of HOSTS) {
      const fake = await host.start();
      t.after(() => fake.stop());
      fake.createRepository({
        'README.md': `# ${host.short} e2e\n`,
        [`apps/prod-${host.short}/podinfo.yaml`]: prodHelmRelease(host.short, OLD),
      });
      for (const env of ['dev', 'prod']) kube.put(helmReleaseRunning(`${env}-${host.short}`, OLD));
      // Weave's GitLab e2e pipeline as it is (only the repository URL is the fake's); the twins in its shape.
      const pipeline = weaveGitLab
        .replaceAll('gitlab', host.short)
        .replace(/type: "[a-z]+"/, `type: "${host.type}"`)
        .replace(/url: "[^"]+"/, `url: "${fake.repositoryUrl}"`);
      hosts.push({ ...host, fake, pipeline });
    }

    const root = await tempFiles(t, {
      'config/cluster.yaml': clusterWithKubeconfigYaml(MANAGEMENT, kube.kubeconfig(), NAMESPACE),
      'config/credentials.yaml': yamlDocuments(
        ...hosts.map((host) => secretYaml(`${host.short}-promotion-credentials`, host.fake.secretValues, NAMESPACE)),
      ),
      'config/pipelines.yaml': yamlDocuments(...hosts.map((host) => host.pipeline)),
    });
    const dataDir = join(root, 'data');
    const serve = await startServe(
      t,
      [
        ...['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1s'],
        ...['--default-cluster', `${NAMESPACE}/${MANAGEMENT}`],
        ...hosts.flatMap((host) => [host.flag, host.fake.apiUrl]),
      ],
      { timeoutMs: 30_000 },
    );

    // Flux upgrades dev on the management cluster and reports it, signed with the cluster's key.
    const key = deriveClusterKey((await loadOrCreateMasterKeys(dataDir)).current, {
      namespace: NAMESPACE,
      name: MANAGEMENT,
    });
    const sendEvent = async (body: string) => {
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
      return response.status;
    };
    for (const host of hosts) {
      const stored = kube.put(helmReleaseRunning(`dev-${host.short}`, NEW));
      assert.equal(await sendEvent(helmReleaseEvent(stored, NEW)), 202);
    }

    for (const host of hosts) {
      const branch = `promotion-flux-system-podinfo-${host.short}-prod`;
      const pull = await waitFor(`the ${host.type} pull request`, () => host.fake.pullRequests()[0]);
      // Weave's body first, byte for byte, then the evidence (docs/evidence.md).
      const weaveBody = pullRequestBody('flux-system', `podinfo-${host.short}`, 'prod');
      assert.ok(pull.body.startsWith(`${weaveBody}\n\n### Evidence\n\nPromoted from **dev**.\n`), pull.body);
      assert.deepEqual(
        { ...pull, url: undefined, body: undefined },
        {
          title: `Promote flux-system/podinfo-${host.short} in prod to ${NEW}`,
          body: undefined,
          state: 'open',
          source: branch,
          target: 'main',
          url: undefined,
        },
        host.type,
      );
      assert.deepEqual(
        host.fake.files(branch),
        { ...host.fake.files('main'), [`apps/prod-${host.short}/podinfo.yaml`]: prodHelmRelease(host.short, NEW) },
        `${host.type}: only the marked value changed`,
      );
    }

    // The status records each promotion with its pull request; a repeated event changes nothing.
    await waitFor('every promotion recorded', async () => {
      const result = await runPipelinectl(['status', '-o', 'json', '--data-dir', dataDir], { timeoutMs: 30_000 });
      const status = JSON.parse(result.stdout) as {
        pipelines: {
          name: string;
          environments: { name: string; promotions: { state: string; result: string | null }[] }[];
        }[];
      };
      return hosts.every((host) => {
        const prod = status.pipelines
          .find((pipeline) => pipeline.name === `podinfo-${host.short}`)
          ?.environments.find((env) => env.name === 'prod');
        return prod?.promotions.some(
          (promotion) => promotion.state === 'succeeded' && promotion.result === host.fake.pullRequests()[0]?.url,
        );
      });
    });
    const stored = kube.put(helmReleaseRunning(`dev-${hosts[0]?.short ?? ''}`, NEW));
    assert.equal(await sendEvent(helmReleaseEvent(stored, NEW)), 202);
    const lists = kube.count('list');
    await waitFor('two more poll rounds', () => kube.count('list') >= lists + 2);
    for (const host of hosts) assert.equal(host.fake.pullRequests().length, 1, `${host.type}: one pull request`);

    const stopped = await serve.stop('SIGTERM');
    assert.equal(stopped.code, 0, stopped.stderr);
    const output = `${stopped.stdout}${stopped.stderr}`;
    for (const host of hosts) {
      for (const secret of Object.values(host.fake.secretValues)) assert.equal(output.includes(secret), false);
    }
  });
});
