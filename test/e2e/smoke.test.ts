// The shortest end-to-end run: `pipelinectl serve` as a child process with a dev → prod pipeline; Flux reports that
// dev runs a new version, and prod is promoted by one GitHub pull request, recorded in `pipelinectl status`.
// scripts/node22-checks.sh runs this file on Node 22 (serve, the CLI, Octokit and the local store on the Lambda
// runtime's Node); the default run checks the same on the machine's Node, as the rest of test/e2e does at length.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pipelineYaml } from '../../lib/testing/config-yaml.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { allTargetsRun, environmentOf, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

const OLD = '6.9.1';
const NEW = '6.9.2';

const manifest = (version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:prod"}
`;

describe(`one promotion through pipelinectl serve, on Node ${process.versions.node}`, () => {
  it('promotes prod by a pull request once dev reports the new version', async (t) => {
    const world = await startWorld(t, {
      clusters: ['dev', 'prod'],
      repository: { 'clusters/prod/podinfo.yaml': manifest(OLD) },
      pipelines: pipelineYaml({
        name: 'podinfo',
        environments: ['dev', 'prod'].map((env) => ({ name: env, targets: [{ namespace: 'podinfo', cluster: env }] })),
        strategy: { url: REPOSITORY_URL },
      }),
      // Only the first poll, at the start: the promotion comes from the event.
      pollInterval: '1h',
    });
    world.cluster('dev').put(helmReleaseRunning('podinfo', OLD));
    world.cluster('prod').put(helmReleaseRunning('podinfo', OLD));
    await world.startServe();
    await waitFor('both targets read', async () => allTargetsRun(await world.statusNow(), () => OLD));

    const stored = world.cluster('dev').put(helmReleaseRunning('podinfo', NEW));
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(stored, NEW), 'helm-controller'), 202);

    const pull = await waitFor('the prod pull request', () => world.github.pulls(OWNER, REPOSITORY)[0]);
    assert.equal(pull.title, `Promote flux-system/podinfo in prod to ${NEW}`);
    assert.equal(world.github.readFile(OWNER, REPOSITORY, pull.head, 'clusters/prod/podinfo.yaml'), manifest(NEW));
    await waitFor(
      'the succeeded promotion',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').promotions[0]?.state === 'succeeded',
    );
    const prod = environmentOf(await world.statusCli(), 'podinfo', 'prod');
    assert.deepEqual(
      prod.promotions.map(({ revision, state, result }) => ({ revision, state, result })),
      [{ revision: NEW, state: 'succeeded', result: pull.htmlUrl }],
    );
    const stopped = await world.serve().stop('SIGTERM');
    assert.equal(stopped.code, 0, stopped.stderr);
  });
});
