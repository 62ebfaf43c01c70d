// The first environment is promoted too (docs/configuration.md, "The first environment is promoted too"), end to end through
// `pipelinectl serve`: a Pipeline whose `spec.source` is an ImagePolicy on the dev cluster. When image automation
// selects a new tag, the first environment gets a pull request setting its markers to that tag; once dev runs it,
// prod follows as in any pipeline. The ImagePolicy's event is only a trigger: the tag is read from the cluster.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pipelineYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import type { FakeGitHub, FakePullRequest } from '../../lib/testing/fake-github.js';
import { imagePolicy } from '../fixtures/flux-objects.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { allTargetsRun, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

/** The podinfo HelmRelease of one environment: its chart version carries the environment's marker. */
const podinfoRelease = (env: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  interval: 10m
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:${env}"}
      sourceRef: {kind: HelmRepository, name: podinfo}
`;

const REPOSITORY_FILES = {
  'clusters/dev/podinfo.yaml': podinfoRelease('dev', '6.4.0'),
  'clusters/prod/podinfo.yaml': podinfoRelease('prod', '6.4.0'),
};

const PIPELINES = yamlDocuments(
  pipelineYaml({
    name: 'podinfo',
    source: { kind: 'ImagePolicy', name: 'podinfo', namespace: 'flux-system', cluster: 'dev' },
    environments: [
      { name: 'dev', targets: [{ namespace: 'podinfo', cluster: 'dev' }] },
      { name: 'prod', targets: [{ namespace: 'podinfo', cluster: 'prod' }] },
    ],
    strategy: { url: REPOSITORY_URL },
  }),
);

/** image-reflector-controller's event when the policy selects a new tag, as a generic-hmac Provider posts it. */
function imagePolicyEvent(object: { metadata: Record<string, unknown> }, from: string, to: string): string {
  const { namespace, name, uid, resourceVersion } = object.metadata;
  return JSON.stringify({
    involvedObject: {
      kind: 'ImagePolicy',
      namespace,
      name,
      uid,
      apiVersion: 'image.toolkit.fluxcd.io/v1',
      resourceVersion,
    },
    severity: 'info',
    timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    message: `Latest image tag for ghcr.io/stefanprodan/podinfo updated from ${from} to ${to}`,
    reason: 'Succeeded',
    metadata: {},
    reportingController: 'image-reflector-controller',
    reportingInstance: 'image-reflector-controller-6d9f5c7b8-q2w3e',
  });
}

function pullFor(github: FakeGitHub, branch: string): FakePullRequest | undefined {
  return github.pulls(OWNER, REPOSITORY).find((pull) => pull.head === branch);
}

describe('a pipeline whose source is an ImagePolicy, through pipelinectl serve', () => {
  it('promotes a new tag into the first environment by pull request, then onwards to prod', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: REPOSITORY_FILES,
      pipelines: PIPELINES,
      pollInterval: '1s',
    });
    const { github } = world;
    const dev = world.cluster('dev');
    const prod = world.cluster('prod');
    dev.put(helmReleaseRunning('podinfo', '6.4.0'));
    prod.put(helmReleaseRunning('podinfo', '6.4.0'));
    dev.put(imagePolicy({ tag: '6.4.0' }));
    const initialMain = github.ref(OWNER, REPOSITORY, 'main') as string;

    // 1. The fleet is level with the source: every target and the source read (a poll reads dev's kinds one after
    // the other), nothing promoted.
    await world.startServe();
    await waitFor('every target and the source read', async () => {
      const status = await world.statusNow();
      const source = status.pipelines.find((candidate) => candidate.name === 'podinfo')?.source;
      return allTargetsRun(status, () => '6.4.0') && source?.state === 'found' && source.version === '6.4.0';
    });
    const level = await world.pipelinectl('explain', 'flux-system/podinfo');
    assert.equal(level.code, 0, level.stderr);
    assert.match(
      level.stdout,
      /^Source: ImagePolicy flux-system\/podinfo on flux-system\/dev \(found\/VersionFound\): .* names 6\.4\.0$/m,
    );
    assert.deepEqual(github.pulls(OWNER, REPOSITORY), []);
    const table = await world.pipelinectl('status');
    assert.match(
      table.stdout,
      /^source: ImagePolicy flux-system\/podinfo on flux-system\/dev names 6\.4\.0 \(found\/VersionFound\)$/m,
    );

    // 2. Image automation selects 6.5.0 and tells: the first environment gets its pull request.
    const policy = dev.put(imagePolicy({ tag: '6.5.0' }));
    const event = imagePolicyEvent(policy, '6.4.0', '6.5.0');
    assert.equal(await world.sendEvent('dev', event, 'image-reflector-controller'), 202);
    const devPull = await waitFor('the dev pull request', () => pullFor(github, 'promotion-flux-system-podinfo-dev'));
    assert.equal(devPull.title, 'Promote flux-system/podinfo in dev to 6.5.0');
    assert.deepEqual(github.files(OWNER, REPOSITORY, devPull.head), {
      ...github.files(OWNER, REPOSITORY, initialMain),
      'clusters/dev/podinfo.yaml': podinfoRelease('dev', '6.5.0'),
    });
    // The same event again (notification-controller retries) promotes nothing twice.
    assert.equal(await world.sendEvent('dev', event, 'image-reflector-controller'), 202);

    // 3. The pull request is merged and Flux rolls 6.5.0 out on dev: prod follows, from dev's revision.
    github.merge(OWNER, REPOSITORY, devPull.number);
    const released = dev.put(helmReleaseRunning('podinfo', '6.5.0'));
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(released, '6.5.0'), 'helm-controller'), 202);
    const prodPull = await waitFor('the prod pull request', () =>
      pullFor(github, 'promotion-flux-system-podinfo-prod'),
    );
    assert.equal(prodPull.title, 'Promote flux-system/podinfo in prod to 6.5.0');
    assert.equal(
      github.readFile(OWNER, REPOSITORY, prodPull.head, 'clusters/prod/podinfo.yaml'),
      podinfoRelease('prod', '6.5.0'),
    );

    // 4. One pull request per (environment, version), both recorded.
    const status = await world.statusCli();
    const pipeline = status.pipelines.find((candidate) => candidate.name === 'podinfo');
    assert.deepEqual(pipeline?.source && { state: pipeline.source.state, version: pipeline.source.version }, {
      state: 'found',
      version: '6.5.0',
    });
    assert.deepEqual(
      pipeline?.environments.map((env) => [env.name, env.promotions.map((p) => `${p.revision} ${p.state}`)]),
      [
        ['dev', ['6.5.0 succeeded']],
        ['prod', ['6.5.0 succeeded']],
      ],
    );
    assert.equal(github.pulls(OWNER, REPOSITORY).length, 2);
  });
});
