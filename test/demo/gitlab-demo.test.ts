// The demo on GitLab: examples/demo-gitlab's world (simulated clusters, Flux and a simulated GitLab whose project
// holds the Pipeline, which the ConfigSource applies) with the real controller in the local mode, wired as
// `pipelinectl demo --git-host gitlab` wires it, promotes through merge requests; and the command line's `--git-host`.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { loadConfiguration } from '../../lib/config/index.js';
import { FluxSimulator } from '../../lib/demo/flux-simulator.js';
import { MergeBot } from '../../lib/demo/merge-bot.js';
import { PipelineReader } from '../../lib/demo/pipeline-reader.js';
import { ReleaseGenerator } from '../../lib/demo/release-generator.js';
import { readRepositoryFiles } from '../../lib/demo/repository-files.js';
import { startDemoWorld, type DemoWorld } from '../../lib/demo/world.js';
import { startLocalMode } from '../../lib/local/mode.js';
import { createConsoleLogger } from '../../lib/logging/console-logger.js';
import { markersIn } from '../../lib/promotion/markers.js';
import { chartVersionIn } from '../../lib/testing/helm-release.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { pipelinectl, tempDir } from './pipelinectl-process.js';

const GITLAB_EXAMPLE = fileURLToPath(new URL('../../examples/demo-gitlab/', import.meta.url));
const GITLAB_FLEET = fileURLToPath(new URL('../../examples/demo-gitlab-fleet/', import.meta.url));
const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const STAGING_FILE = 'clusters/staging/podinfo.yaml';
const PROD_FILES = ['clusters/prod-eu/podinfo.yaml', 'clusters/prod-us/podinfo.yaml'];

/**
 * examples/demo-gitlab's world and the local mode on it, with a fast simulated Flux. Everything is stopped after the
 * test in reverse order (the store before its data directory is removed).
 */
async function startGitLabDemo(t: TestContext) {
  const cleanup: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    for (const stop of cleanup.reverse()) await stop();
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'pipelinectl-gitlab-demo-'));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  const loaded = await loadConfiguration(GITLAB_EXAMPLE);
  assert.ok(loaded.ok);
  const world: DemoWorld = await startDemoWorld(loaded.configuration, '6.9.0', await readRepositoryFiles(GITLAB_FLEET));
  cleanup.push(() => world.stop());
  const log: string[] = [];
  const mode = await startLocalMode({
    configDir: GITLAB_EXAMPLE,
    dataDir,
    port: 0,
    pollIntervalMs: 60_000,
    ...world.hostApi,
    secrets: world.secrets,
    logger: createConsoleLogger({ format: 'text', level: 'warn', stream: { write: (line: string) => log.push(line) } }),
  });
  cleanup.push(() => mode.stop());
  const simulator = new FluxSimulator({
    repository: world.repository,
    targets: world.targets,
    receiverUrl: mode.receiverUrl,
    masterKey: mode.masterKeys.current,
    intervalMs: 20,
    reconcileDelayMs: 10,
    upgradeMs: 10,
    eventRetryDelaysMs: [100, 200],
  }).start();
  cleanup.push(() => simulator.stop());
  const bot = new MergeBot({ repository: world.repository, delayMs: 0, intervalMs: 20 });
  cleanup.push(() => bot.stop());
  await mode.poll();
  /** What went wrong, for a failed wait. */
  const context = () => `\ncontroller log:\n${log.join('')}`;
  return { dataDir, world, mode, simulator, bot, context };
}

describe('the demo on GitLab', () => {
  it('opens the merge request for an approved release on the simulated GitLab, then the next one once merged', async (t) => {
    const { dataDir, world, mode, simulator, bot, context } = await startGitLabDemo(t);
    const { repository } = world;
    // The Pipeline is the project's pipelines/podinfo.yaml, applied by the ConfigSource at the project's head.
    const source = { namespace: 'flux-system', name: 'fleet' };
    const status = await waitFor('the ConfigSource applied', async () => {
      const stored = await mode.store.getConfigSource(source);
      return stored?.status.lastAppliedRevision === undefined ? undefined : stored.status;
    }).catch((error: unknown) => assert.fail(`${String(error)}${context()}`));
    assert.deepEqual(
      status.conditions.map((c) => [c.type, c.status, c.reason]),
      [['Ready', 'True', 'Succeeded']],
    );
    const stored = await mode.store.getPipeline(PIPELINE);
    assert.deepEqual(stored?.owner, { configSource: source, revision: status.lastAppliedRevision });
    assert.match(status.lastAppliedRevision ?? '', /^main@sha1:[0-9a-f]{40}$/);
    const ci = new ReleaseGenerator({
      repository,
      files: world.sourceFiles.get('flux-system/podinfo') ?? [],
      everyMs: 60_000,
    });
    assert.equal(ci.release(), '6.9.1');

    // Dev runs it; staging (manual) asks for its approval, which a person gives from a second terminal.
    const waiting = await waitFor('the staging approval request', async () => {
      const approval = await mode.store.getApproval(PIPELINE, 'staging');
      return approval?.approvedAt === undefined ? approval?.revision : undefined;
    }).catch((error: unknown) => assert.fail(`${String(error)}${context()}`));
    assert.equal(waiting, '6.9.1');
    assert.deepEqual(repository.pullRequests(), [], 'nothing is opened before the approval');
    const approve = pipelinectl(t, [
      'approve',
      'flux-system/podinfo',
      'staging',
      '--revision',
      '6.9.1',
      '--data-dir',
      dataDir,
    ]);
    assert.equal(await approve.exited, 0, approve.stderr());

    const staging = await waitFor('the staging merge request', () =>
      repository.pullRequests().find((mr) => mr.title === 'Promote flux-system/podinfo in staging to 6.9.1'),
    ).catch((error: unknown) => assert.fail(`${String(error)}${context()}`));
    const { url, ...opened } = staging;
    assert.deepEqual(opened, {
      id: 1,
      title: 'Promote flux-system/podinfo in staging to 6.9.1',
      state: 'open',
      sourceBranch: 'promotion-flux-system-podinfo-staging',
    });
    // Its link opens the simulated GitLab's page of it, which says it is simulated, not gitlab.com's (none there).
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/acme\/fleet\/-\/merge_requests\/1$/);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Simulated GitLab<\/strong>: this merge request exists only in this simulation/);
    assert.match(html, /<h1>acme\/fleet !1: Promote flux-system\/podinfo in staging to 6\.9\.1<\/h1>/);
    assert.match(html, /state: <span id="state">open<\/span>/);
    const proposed = repository.readFile(staging.sourceBranch, STAGING_FILE) ?? '';
    assert.equal(chartVersionIn(proposed), '6.9.1');
    assert.deepEqual(markersIn(proposed), ['flux-system:podinfo:staging'], 'the marker is kept');
    assert.equal(chartVersionIn(repository.readFile('main', STAGING_FILE) ?? ''), '6.9.0', 'main is not touched');

    // The reviewers merge it, staging rolls out, and prod (automatic) follows with one merge request for both.
    bot.start();
    const prod = await waitFor('the prod merge request', () =>
      repository.pullRequests().find((mr) => mr.title === 'Promote flux-system/podinfo in prod to 6.9.1'),
    ).catch((error: unknown) => assert.fail(`${String(error)}${context()}`));
    assert.equal(repository.pullRequests()[0]?.state, 'merged');
    assert.equal(simulator.states().find((s) => s.file === STAGING_FILE)?.status?.revision, '6.9.1');
    assert.equal(prod.id, 2);
    for (const file of PROD_FILES) {
      assert.equal(chartVersionIn(repository.readFile(prod.sourceBranch, file) ?? ''), '6.9.1', file);
    }
  });
});

describe("the demo's ConfigSource", () => {
  it('shows in the activity the commit it applied, and a pushed commit it refuses with the file and field', async (t) => {
    const { mode, world, context } = await startGitLabDemo(t);
    const source = { namespace: 'flux-system', name: 'fleet' };
    const reader = new PipelineReader(mode.store, [PIPELINE], [source]);
    const messages = async () => (await reader.audit()).map((line) => line.message);
    const applied = await waitFor('the applied commit in the activity', async () =>
      (await messages()).find((message) => message.startsWith('ConfigSource flux-system/fleet applied')),
    ).catch((error: unknown) => assert.fail(`${String(error)}${context()}`));
    assert.match(
      applied,
      /^ConfigSource flux-system\/fleet applied main@sha1:[0-9a-f]{7} from Git: created Pipeline flux-system\/podinfo$/,
    );

    // Someone pushes a Pipeline whose environment names a cluster that does not exist.
    const file = 'pipelines/podinfo.yaml';
    const text = world.repository.readFile('main', file) ?? '';
    world.repository.commitFiles('main', { [file]: text.replace('name: prod-us', 'name: prod-asia') }, 'Add Asia');
    await mode.poll();
    const refused = await waitFor('the refused commit in the activity', async () =>
      (await messages()).find((message) => message.includes('not applied')),
    ).catch((error: unknown) => assert.fail(`${String(error)}${context()}`));
    assert.match(
      refused,
      /^ConfigSource flux-system\/fleet: not applied \(ValidationFailed\): .*pipelines\/podinfo\.yaml/,
    );
    assert.match(refused, /prod-asia/);
    // The Pipeline in force is the one applied before.
    const stored = await mode.store.getPipeline(PIPELINE);
    assert.deepEqual(
      stored?.pipeline.environments.at(-1)?.targets.map((target) => target.cluster.name),
      ['prod-eu', 'prod-us'],
    );
  });
});

describe('pipelinectl demo --git-host', () => {
  it('gitlab runs examples/demo-gitlab on a simulated GitLab', async (t) => {
    const dataDir = await tempDir(t);
    // The banner names the example's path in the checkout, as `npm start -- --git-host gitlab` prints it.
    const demo = pipelinectl(t, ['demo', '--git-host', 'gitlab', '--port', '0', '--data-dir', dataDir], {
      checkout: true,
    });
    await waitFor('the introduction', () => demo.stdout().includes('Ctrl-C stops everything')).catch((error: unknown) =>
      assert.fail(`${String(error)}\nstdout:\n${demo.stdout()}\nstderr:\n${demo.stderr()}`),
    );
    const out = demo.stdout();
    assert.match(out, /^SIMULATION — no real cluster or GitLab is touched\ndashboard: /);
    assert.match(out, /on examples\/demo-gitlab\n/);
    assert.match(out, /a simulated GitLab repository acme\/fleet whose promotion merge requests a bot merges after 3s/);
    demo.child.kill('SIGINT');
    assert.equal(await demo.exited, 0, demo.stderr());
    assert.equal(demo.stderr(), '');
  });

  it('must agree with the host of a --config, and nothing is touched when it does not', async (t) => {
    const dataDir = await tempDir(t);
    const demo = pipelinectl(t, [
      'demo',
      '--git-host',
      'gitlab',
      '--config',
      'examples/demo',
      '--repository',
      'examples/demo-fleet',
      '--data-dir',
      dataDir,
    ]);
    assert.equal(await demo.exited, 1);
    assert.match(
      demo.stderr(),
      /--git-host gitlab, but examples\/demo promotes through GitHub \(acme\/fleet\): the configuration's pull-request type/,
    );
    assert.deepEqual(await readdir(dataDir), []);
  });

  it('accepts github and gitlab only', async (t) => {
    const demo = pipelinectl(t, ['demo', '--git-host', 'bitbucket']);
    assert.equal(await demo.exited, 1);
    assert.match(demo.stderr(), /argument 'bitbucket' is invalid\. Allowed choices are github, gitlab\./);
  });
});
