// A leaf cluster that reports something other than a version as its revision: the whole loop (the real cluster reader
// against a fake Kubernetes API server, the verifier, the store on dynalite, pull requests against the fake GitHub)
// marks that target Unreadable with reason InvalidRevision, promotes nothing and asks nobody for approval, and reads
// the other targets of the same poll as before. What it stores of the value is a short, escaped excerpt.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { isPrintable } from '../../lib/logging/printable.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import { GitHubPullRequestPromoter } from '../../lib/testing/github-pull-request-promoter.js';
import { StrategyPromoter } from '../../lib/promotion/index.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { PIPELINE, deployed, settled, startLoop } from './harness.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const pullRequest = {
  type: 'github' as const,
  url: 'https://github.com/acme/fleet',
  baseBranch: 'main',
  secretRef: { name: 'github' },
};

/** dev and staging share the cluster `dev` (namespaces `apps` and `apps-staging`): one poll reads both. */
function pipeline(stagingManual: boolean): PipelineDocument {
  const onDev = (namespace: string) => [{ namespace, clusterRef: { kind: 'GitopsCluster' as const, name: 'dev' } }];
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: onDev('apps') },
        {
          name: 'staging',
          targets: onDev('apps-staging'),
          ...(stagingManual ? { promotion: { manual: true, strategy: { 'pull-request': pullRequest } } } : {}),
        },
      ],
      promotion: { strategy: { 'pull-request': pullRequest, secretRef: { name: 'webhook-hmac' } } },
    },
  };
}

const release = (version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: apps-staging
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:staging"}
`;

/** The dev HelmRelease, healthy, its deployed release reporting `chartVersion` (helm-controller's history entry). */
function reporting(chartVersion: string): Record<string, unknown> {
  const object = deployed('6.9.2') as {
    status: { lastAttemptedRevision: string; history: { chartVersion: string }[] };
  };
  const [latest] = object.status.history;
  assert.ok(latest);
  latest.chartVersion = chartVersion;
  object.status.lastAttemptedRevision = chartVersion;
  return object;
}

const app = (namespace: string): AppKey => ({
  cluster: { namespace: 'flux-system', name: 'dev' },
  kind: 'HelmRelease',
  namespace,
  name: 'podinfo',
});

async function start(t: TestContext, stagingManual: boolean) {
  const github = await new FakeGitHub().start();
  t.after(() => github.stop());
  github.createRepository('acme', 'fleet', { 'clusters/staging/podinfo.yaml': release('6.9.1') });
  const loop = await startLoop(t, {
    pipeline: pipeline(stagingManual),
    clusters: ['dev'],
    secrets: { github: { token: github.token } },
    promoter: (secrets) =>
      new StrategyPromoter({
        pullRequest: new GitHubPullRequestPromoter({ secrets, apiUrl: github.url, writeIntervalMs: 0 }),
      }),
  });
  // The usual start: both environments run 6.9.1, and the loop has read them.
  loop.dev.put(deployed('6.9.1'));
  loop.dev.put(deployed('6.9.1', 'apps-staging'));
  await loop.poll();
  await settled(loop.queue);
  assert.equal((await loop.store.getTargetStatus(app('apps-staging')))?.status.revision, '6.9.1');
  return { loop, github };
}

/** The largest item the table holds, in bytes of its JSON: DynamoDB refuses an item over 400 KB. */
async function largestItem(loop: Awaited<ReturnType<typeof startLoop>>): Promise<number> {
  const { dynamo } = loop;
  let largest = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.client.send(
      new ScanCommand({ TableName: dynamo.tableName, ...(start ? { ExclusiveStartKey: start as never } : {}) }),
    );
    for (const item of page.Items ?? []) largest = Math.max(largest, JSON.stringify(item).length);
    start = page.LastEvaluatedKey;
  } while (start);
  return largest;
}

describe('a dev HelmRelease whose chart version is not a version', () => {
  for (const { name, value, shown } of [
    { name: 'a range', value: '>=0.0.0', shown: '">=0.0.0"' },
    { name: 'a wildcard', value: '*', shown: '"*"' },
    { name: 'an image reference', value: 'evil.example/backdoor:1', shown: '"evil.example/backdoor:1"' },
    { name: 'a line break', value: '6.9.2\nevil: true', shown: '"6.9.2\\u{a}evil: true"' },
    { name: 'a megabyte', value: `6.9.2-${'x'.repeat(1 << 20)}`, shown: `"6.9.2-${'x'.repeat(58)}…"` },
  ]) {
    it(`${name}: Unreadable, no pull request, the other target of the poll still read, small items`, async (t) => {
      const { loop, github } = await start(t, false);
      loop.dev.put(reporting(value));
      // staging changed at the same time (rolled back by hand): the same poll must still read it.
      loop.dev.put(deployed('6.9.0', 'apps-staging'));
      await loop.poll();
      await settled(loop.queue);

      const dev = (await loop.store.getTargetStatus(app('apps')))?.status;
      assert.deepEqual(
        { phase: dev?.phase, reason: dev?.reason, revision: dev?.revision },
        { phase: 'Unreadable', reason: 'InvalidRevision', revision: undefined },
      );
      assert.equal(
        dev?.message,
        `HelmRelease apps/podinfo: status.history.0.chartVersion ${shown} is not a Helm chart version (SemVer 2)`,
      );
      assert.ok(isPrintable(dev.message));
      const staging = (await loop.store.getTargetStatus(app('apps-staging')))?.status;
      assert.deepEqual(
        { phase: staging?.phase, revision: staging?.revision },
        { phase: 'Ready', revision: '6.9.0' },
        'the other target of the cluster is read by the same poll',
      );

      assert.deepEqual(github.pulls('acme', 'fleet'), [], 'nothing is promoted');
      const audit = (await loop.store.listAudit(PIPELINE)).items.map((entry) => entry.type);
      assert.ok(!audit.includes('promotion-started'), audit.join(', '));
      // What a read stores is a status of a few hundred bytes, whatever the cluster sent.
      assert.ok(JSON.stringify(dev).length < 400, `${JSON.stringify(dev).length} bytes`);
      const largest = await largestItem(loop);
      assert.ok(largest < 8192, `the largest item has ${largest} bytes`);
    });
  }

  it('the empty chart version asks nobody for approval; a version after it does', async (t) => {
    const { loop, github } = await start(t, true);
    loop.dev.put(reporting(''));
    await loop.poll();
    await settled(loop.queue);
    assert.equal((await loop.store.getTargetStatus(app('apps')))?.status.reason, 'InvalidRevision');
    assert.equal(await loop.store.getApproval(PIPELINE, 'staging'), undefined, 'no approval request');

    // The cluster reports a version again: the pipeline carries on as usual.
    loop.dev.put(deployed('6.9.2'));
    await loop.poll();
    const marker = await waitFor('the approval request', () => loop.store.getApproval(PIPELINE, 'staging'));
    assert.equal(marker.revision, '6.9.2');
    await settled(loop.queue);
    assert.deepEqual(github.pulls('acme', 'fleet'), []);
  });
});
