// A full pipeline, dev → staging (manual) → prod, promoted through pull requests against the fake GitHub, driven
// by signed Flux events as leaf clusters would send them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { GitHubPullRequestPromoter } from '../../lib/testing/github-pull-request-promoter.js';
import { StrategyPromoter } from '../../lib/promotion/index.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { PIPELINE, deployed, settled, startLoop, upgradeEvent } from './harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const pullRequest = {
  type: 'github' as const,
  url: 'https://github.com/acme/fleet',
  baseBranch: 'main',
  secretRef: { name: 'github' },
};

const pipeline: PipelineDocument = {
  apiVersion: 'pipelines.weave.works/v1alpha1',
  kind: 'Pipeline',
  metadata: { name: 'podinfo', namespace: 'flux-system' },
  spec: {
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'dev' } }] },
      {
        name: 'staging',
        targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'staging' } }],
        promotion: { manual: true, strategy: { 'pull-request': pullRequest } },
      },
      {
        name: 'prod',
        targets: [
          { namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
          { namespace: 'apps-eu', clusterRef: { kind: 'GitopsCluster', name: 'prod' } },
        ],
      },
    ],
    promotion: { strategy: { 'pull-request': pullRequest, secretRef: { name: 'webhook-hmac' } } },
  },
};

const release = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps
spec:
  interval: 10m
  chart:
    spec:
      chart: podinfo
      # the version this environment runs
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
      sourceRef: {kind: HelmRepository, name: podinfo, namespace: flux-system}
`;

describe('a full pipeline through pull requests', () => {
  it('dev → staging (manual) → prod, from signed events to merged pull requests', async (t) => {
    const github = await new FakeGitHub().start();
    t.after(() => github.stop());
    github.createRepository('acme', 'fleet', {
      'clusters/dev/podinfo.yaml': release('dev', '6.9.1'),
      'clusters/staging/podinfo.yaml': release('staging', '6.9.1'),
      'clusters/prod/podinfo.yaml': release('prod', '6.9.1'),
      'README.md': '# fleet\n',
    });
    const loop = await startLoop(t, {
      pipeline,
      clusters: ['dev', 'staging', 'prod'],
      secrets: { github: { token: github.token } },
      promoter: (secrets) =>
        new StrategyPromoter({
          pullRequest: new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, writeIntervalMs: 0 }),
        }),
    });
    const [dev, staging, prod] = ['dev', 'staging', 'prod'].map((name) => loop.cluster(name));
    await loop.deployEverywhere('6.9.1');
    assert.equal(github.pulls('acme', 'fleet').length, 0);

    // 1. A new release reaches dev; Flux reports it. Staging is manual: an approval is requested, no PR yet.
    dev?.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('dev', upgradeEvent('6.9.2')), 202);
    await waitFor(
      'the staging approval request',
      async () => (await loop.store.getApproval(PIPELINE, 'staging'))?.revision,
    );
    await settled(loop.queue);
    assert.equal(github.pulls('acme', 'fleet').length, 0);

    // 2. Someone approves; the staging pull request is opened with Weave's title, body and branch.
    assert.equal(await loop.approve('staging', '6.9.2'), 202);
    const stagingPull = await waitFor('the staging pull request', () => github.pulls('acme', 'fleet')[0]);
    assert.equal(stagingPull.title, 'Promote flux-system/podinfo in staging to 6.9.2');
    assert.equal(stagingPull.head, 'promotion-flux-system-podinfo-staging');
    assert.equal(stagingPull.base, 'main');
    // Weave's block first, byte for byte, then the evidence: dev's target as the verifier observed it.
    const weaveBlock =
      '<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\nflux-system/podinfo/staging\n</details>';
    assert.ok(stagingPull.body.startsWith(`${weaveBlock}\n`), stagingPull.body);
    assert.match(stagingPull.body, /### Evidence\n\nPromoted from \*\*dev\*\*\./);
    assert.match(stagingPull.body, /\| flux-system\/dev apps \| 6\.9\.2 \| Ready \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \|/);
    assert.equal(
      github.readFile('acme', 'fleet', 'promotion-flux-system-podinfo-staging', 'clusters/staging/podinfo.yaml'),
      release('staging', '6.9.2'),
    );
    assert.equal(
      github.readFile('acme', 'fleet', 'promotion-flux-system-podinfo-staging', 'clusters/prod/podinfo.yaml'),
      release('prod', '6.9.1'),
      'prod is not touched by the staging promotion',
    );
    await waitFor('the recorded URL', async () => {
      const record = await loop.store.getPromotion(PIPELINE, 'staging', '6.9.2');
      return record?.state === 'succeeded' && record.result === stagingPull.htmlUrl;
    });

    // 3. The PR is merged and Flux rolls staging out; staging's controller reports it. Prod is next.
    github.merge('acme', 'fleet', stagingPull.number);
    staging?.put(deployed('6.9.2'));
    assert.equal(await loop.sendEvent('staging', upgradeEvent('6.9.2')), 202);
    const prodPull = await waitFor('the prod pull request', () =>
      github.pulls('acme', 'fleet').find((pull) => pull.head === 'promotion-flux-system-podinfo-prod'),
    );
    assert.equal(prodPull.title, 'Promote flux-system/podinfo in prod to 6.9.2');
    assert.equal(
      github.readFile('acme', 'fleet', prodPull.head, 'clusters/prod/podinfo.yaml'),
      release('prod', '6.9.2'),
    );
    assert.equal(
      github.readFile('acme', 'fleet', prodPull.head, 'clusters/staging/podinfo.yaml'),
      release('staging', '6.9.2'),
      'the prod branch starts from main, which has the merged staging change',
    );

    // 4. Merged and rolled out to both prod targets: the pipeline is done; nothing more is opened.
    github.merge('acme', 'fleet', prodPull.number);
    prod?.put(deployed('6.9.2'));
    prod?.put(deployed('6.9.2', 'apps-eu'));
    assert.equal(await loop.sendEvent('prod', upgradeEvent('6.9.2')), 202);
    assert.equal(await loop.sendEvent('prod', upgradeEvent('6.9.2', 'apps-eu')), 202);
    await settled(loop.queue);
    await loop.poll();
    await settled(loop.queue);
    assert.equal(github.pulls('acme', 'fleet').length, 2, 'one pull request per environment');
    assert.deepEqual(
      github.pulls('acme', 'fleet').map((pull) => [pull.head, pull.merged]),
      [
        ['promotion-flux-system-podinfo-staging', true],
        ['promotion-flux-system-podinfo-prod', true],
      ],
    );
    const prodRecord = await loop.store.getPromotion(PIPELINE, 'prod', '6.9.2');
    assert.equal(prodRecord?.result, prodPull.htmlUrl);
  });
});
