// Two faults that take a real process to show, on `pipelinectl serve` as a child process with a dev → prod pipeline:
//
// - every Flux event is lost: the scheduled poll still promotes, and from the first poll of the changed cluster (the
//   LISTs that cluster answered are counted, no clock is read);
// - serve is killed with SIGKILL in the middle of a promotion (the fake GitHub holds the pull request's creation
//   unanswered) and started again on the same data directory: the promotion completes at once, not when the dead
//   process's lease would have run out, with exactly one pull request, the branch commit made before the kill reused,
//   and the record succeeded on its second attempt.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { describe, it } from 'node:test';
import { pipelineYaml } from '../../lib/testing/config-yaml.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';
import { allTargetsRun, environmentOf, OWNER, REPOSITORY, REPOSITORY_URL, startWorld } from './world.js';

const OLD = '6.9.1';
const NEW = '6.9.2';
const BRANCH = 'promotion-flux-system-podinfo-prod';
const CREATE_PULL_REQUEST = 'POST /repos/{owner}/{repo}/pulls';

const manifest = (version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  interval: 10m
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo:prod"}
      sourceRef: {kind: HelmRepository, name: podinfo, namespace: flux-system}
`;

const PIPELINE = pipelineYaml({
  name: 'podinfo',
  environments: ['dev', 'prod'].map((env) => ({ name: env, targets: [{ namespace: 'podinfo', cluster: env }] })),
  strategy: { url: REPOSITORY_URL },
});

/** dev and prod both run OLD, and serve has read them. */
async function levelWorld(t: TestContext, pollInterval: '1s' | '5s') {
  const world = await startWorld(t, {
    clusters: ['dev', 'prod'],
    repository: { 'README.md': '# fleet\n', 'clusters/prod/podinfo.yaml': manifest(OLD) },
    pipelines: PIPELINE,
    pollInterval,
  });
  world.cluster('dev').put(helmReleaseRunning('podinfo', OLD));
  world.cluster('prod').put(helmReleaseRunning('podinfo', OLD));
  await world.startServe();
  await waitFor('both targets read', async () => allTargetsRun(await world.statusNow(), () => OLD));
  assert.equal(world.github.requests.length, 0, 'nothing to promote yet');
  return world;
}

describe('faults a real process meets', () => {
  it('promotes from the first poll after the change when every event is lost', async (t) => {
    // Polls far enough apart that the work after one poll ends before the next, even on a busy machine.
    const world = await levelWorld(t, '5s');
    const { github } = world;
    const dev = world.cluster('dev');
    // How many LISTs dev had received when the promotion's first GitHub request came in.
    let devListsAtPromotion: number | undefined;
    github.latencyMs = () => {
      devListsAtPromotion ??= dev.count('list');
      return 0;
    };

    const devListsAtChange = dev.count('list');
    dev.put(helmReleaseRunning('podinfo', NEW)); // and Flux's event never arrives

    const pull = await waitFor('the prod pull request', () => github.pulls(OWNER, REPOSITORY)[0]);
    assert.equal(pull.title, `Promote flux-system/podinfo in prod to ${NEW}`);
    assert.equal(github.readFile(OWNER, REPOSITORY, pull.head, 'clusters/prod/podinfo.yaml'), manifest(NEW));
    // The LIST that was running at the change may already have seen it (0); otherwise the next one did (1). A second
    // poll of dev before the promotion would mean the first one that saw the new revision did not act on it.
    assert.ok(devListsAtPromotion !== undefined);
    assert.ok(
      devListsAtPromotion - devListsAtChange <= 1,
      `dev was listed ${devListsAtPromotion - devListsAtChange} times between the change and the promotion`,
    );
    await waitFor(
      'the succeeded promotion',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').promotions[0]?.state === 'succeeded',
    );
  });

  it('finishes a promotion cut off by SIGKILL once serve is started again, with one pull request', async (t) => {
    const world = await levelWorld(t, '1s');
    const { github } = world;
    github.hangNext({ route: CREATE_PULL_REQUEST });

    // 1. dev runs NEW and says so; the promotion gets as far as opening the pull request, which GitHub holds.
    const stored = world.cluster('dev').put(helmReleaseRunning('podinfo', NEW));
    assert.equal(await world.sendEvent('dev', helmReleaseEvent(stored, NEW), 'helm-controller'), 202);
    await waitFor('the pull request creation held at GitHub', () =>
      github.requests.some((request) => request.route === CREATE_PULL_REQUEST && request.status === undefined),
    );
    const branchBeforeKill = github.ref(OWNER, REPOSITORY, BRANCH);
    assert.ok(branchBeforeKill, 'the branch was pushed before the pull request was asked for');

    // 2. SIGKILL: no clean stop. The record stays in progress, leased to the dead process.
    const killed = await world.serve().stop('SIGKILL');
    assert.equal(killed.signal, 'SIGKILL');
    const leftOver = await world.readStore((store) =>
      store.getPromotion({ namespace: 'flux-system', name: 'podinfo' }, 'prod', NEW),
    );
    assert.equal(leftOver?.state, 'in-progress');
    assert.ok(leftOver.leaseExpiresAt && Date.parse(leftOver.leaseExpiresAt) > Date.now(), 'its lease still runs');
    assert.deepEqual(github.pulls(OWNER, REPOSITORY), []);

    // 3. Started again on the same data directory: it ends the cut-off attempt and the first poll resumes it.
    const restarted = await world.startServe();
    const interrupted = restarted
      .logLines()
      .find((line) => line.message === 'promotion interrupted by a stop; retrying it now');
    assert.deepEqual(interrupted && [interrupted.pipeline, interrupted.env, interrupted.revision, interrupted.owner], [
      'flux-system/podinfo',
      'prod',
      NEW,
      leftOver.owner,
    ]);
    const pull = await waitFor('the prod pull request', () => github.pulls(OWNER, REPOSITORY)[0]);
    await waitFor(
      'the succeeded promotion',
      async () => environmentOf(await world.statusNow(), 'podinfo', 'prod').promotions[0]?.state === 'succeeded',
    );

    // 4. What a user checks: one pull request with the right change, on the branch commit made before the kill.
    assert.equal(pull.title, `Promote flux-system/podinfo in prod to ${NEW}`);
    assert.equal(pull.head, BRANCH);
    assert.deepEqual(github.files(OWNER, REPOSITORY, BRANCH), {
      'README.md': '# fleet\n',
      'clusters/prod/podinfo.yaml': manifest(NEW),
    });
    assert.equal(github.ref(OWNER, REPOSITORY, BRANCH), branchBeforeKill, 'the resumed attempt reused the branch');
    assert.deepEqual(Object.keys(github.refs(OWNER, REPOSITORY)), ['refs/heads/main', `refs/heads/${BRANCH}`]);
    assert.equal(github.objectCounts(OWNER, REPOSITORY).commit, 2, 'the initial commit and one promotion commit');

    const status = await world.statusCli();
    assert.deepEqual(
      environmentOf(status, 'podinfo', 'prod').promotions.map(({ revision, state, attempts, result, error }) => ({
        revision,
        state,
        attempts,
        result,
        error,
      })),
      [{ revision: NEW, state: 'succeeded', attempts: 2, result: pull.htmlUrl, error: null }],
    );
    const audit = await world.readStore((store) => store.listAudit({ namespace: 'flux-system', name: 'podinfo' }));
    assert.deepEqual(
      audit.items
        .filter((entry) => entry.type.startsWith('promotion-'))
        .map((entry) => entry.type)
        .reverse(),
      ['promotion-started', 'promotion-interrupted', 'promotion-started', 'promotion-succeeded'],
    );

    // And the polls after it open nothing more.
    const prod = world.cluster('prod');
    const lists = prod.count('list');
    await waitFor('two more poll rounds', () => prod.count('list') >= lists + 2);
    assert.equal(github.pulls(OWNER, REPOSITORY).length, 1);
  });
});
