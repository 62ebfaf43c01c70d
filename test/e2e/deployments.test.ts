// Deployments shown on GitHub, end to end through `pipelinectl serve` (docs/deployments.md): two pipelines promote
// dev → prod by pull request with `deployments: true`; the test merges both pull requests and plays Flux. Each merged
// promotion becomes one GitHub Deployment on its merge commit, `in_progress` while prod takes it, then `success` for
// the pipeline whose prod passed, `failure` with the reason for the one whose prod failed its verification.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FakeGitHubDeployment } from '../../lib/testing/fake-github.js';
import { FakeHttpTarget } from '../../lib/testing/fake-http-target.js';
import { pipelineYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { OWNER, REPOSITORY, REPOSITORY_URL, startWorld, type World } from './world.js';

const APPS = 'apps';
const OLD = '6.4.0';
const NEW = '6.5.0';
const ENVIRONMENT_URL = 'https://prod.example.com';

const release = (app: string, env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: ${app}, namespace: ${APPS}}
spec:
  chart:
    spec:
      chart: ${app}
      version: "${version}" # {"$promotion": "flux-system:${app}:${env}"}
`;

function pipelinesYaml(service: FakeHttpTarget): string {
  return yamlDocuments(
    ...['healthy', 'broken'].map((app) =>
      pipelineYaml({
        name: app,
        environments: [
          { name: 'dev', targets: [{ namespace: APPS, cluster: 'dev' }] },
          {
            name: 'prod',
            targets: [{ namespace: APPS, cluster: 'prod' }],
            verification: JSON.stringify({
              checks: [{ name: 'smoke', http: { url: `${service.url}/${app}/healthz`, allowInsecureLoopback: true } }],
            }),
          },
        ],
        strategy: { url: REPOSITORY_URL },
      }).replace(
        'secretRef: {name: github}}',
        `secretRef: {name: github}, deployments: true, environmentUrl: "${ENVIRONMENT_URL}"}`,
      ),
    ),
  );
}

async function rollOut(world: World, cluster: string, app: string, version: string): Promise<void> {
  const stored = world.cluster(cluster).put(helmReleaseRunning(APPS, version, app));
  assert.equal(await world.sendEvent(cluster, helmReleaseEvent(stored, version), 'helm-controller'), 202);
}

const deploymentOf = (world: World, app: string): FakeGitHubDeployment | undefined =>
  world.github
    .deployments(OWNER, REPOSITORY)
    .find((deployment) => deployment.environment === `flux-system/${app}/prod`);

const statesOf = (deployment: FakeGitHubDeployment | undefined) =>
  (deployment?.statuses ?? []).map((status) => status.state).reverse();

describe('deployments shown on GitHub, through pipelinectl serve', () => {
  it('records each merged promotion as a deployment that goes in_progress, then success or failure', async (t) => {
    const service = await FakeHttpTarget.start();
    t.after(() => service.stop());
    service.route('/healthy/healthz', { status: 200, body: 'ok' });
    service.route('/broken/healthz', { status: 503, body: 'upstream unavailable' });
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: Object.fromEntries(
        ['healthy', 'broken'].flatMap((app) =>
          ['dev', 'prod'].map((env) => [`clusters/${env}/${app}.yaml`, release(app, env, OLD)]),
        ),
      ),
      pipelines: pipelinesYaml(service),
      pollInterval: '1s',
    });
    for (const cluster of ['dev', 'prod']) {
      for (const app of ['healthy', 'broken']) world.cluster(cluster).put(helmReleaseRunning(APPS, OLD, app));
    }
    await world.startServe();

    // 1. dev runs the new version: a pull request for each prod; nothing is deployed before they are merged.
    for (const app of ['healthy', 'broken']) await rollOut(world, 'dev', app, NEW);
    const pulls = await waitFor('both prod pull requests', () => {
      const open = world.github.pulls(OWNER, REPOSITORY).filter((pull) => pull.state === 'open');
      return open.length === 2 ? open : undefined;
    });
    assert.deepEqual(world.github.deployments(OWNER, REPOSITORY), [], 'no deployment for an open pull request');

    // 2. A person merges them: each becomes a deployment on its merge commit, in progress.
    const merges = new Map<string, string>();
    for (const pull of pulls) {
      const app = pull.head.replace('promotion-flux-system-', '').replace(/-prod$/, '');
      merges.set(app, world.github.merge(OWNER, REPOSITORY, pull.number, { mergeCommit: true }));
    }
    await waitFor('both deployments in progress', () =>
      ['healthy', 'broken'].every((app) => statesOf(deploymentOf(world, app)).includes('in_progress')),
    );
    for (const app of ['healthy', 'broken']) {
      const deployment = deploymentOf(world, app);
      assert.equal(deployment?.sha, merges.get(app), `${app}: on the merge commit`);
      assert.deepEqual(deployment?.payload, {
        revision: NEW,
        pullRequest: pulls.find((pull) => pull.head === `promotion-flux-system-${app}-prod`)?.htmlUrl,
      });
    }

    // 3. Flux rolls it out on prod: healthy passes its check, broken fails it.
    for (const app of ['healthy', 'broken']) await rollOut(world, 'prod', app, NEW);
    await waitFor('both deployments decided', () =>
      ['healthy', 'broken'].every((app) =>
        ['success', 'failure'].includes(statesOf(deploymentOf(world, app)).at(-1) ?? ''),
      ),
    );
    const healthy = deploymentOf(world, 'healthy');
    const broken = deploymentOf(world, 'broken');
    assert.deepEqual(statesOf(healthy), ['in_progress', 'success']);
    assert.equal(healthy?.statuses[0]?.environmentUrl, ENVIRONMENT_URL);
    assert.deepEqual(statesOf(broken), ['in_progress', 'failure']);
    assert.match(broken?.statuses[0]?.description ?? '', /smoke.*503/);

    // 4. One deployment per environment and revision, however many decisions the poll makes meanwhile.
    await world.statusCli();
    assert.equal(world.github.deployments(OWNER, REPOSITORY).length, 2);
  });
});
