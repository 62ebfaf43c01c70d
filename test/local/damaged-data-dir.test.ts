// A damaged data directory is never used silently: `serve` (and every command that opens the data directory) checks
// the store before it starts, and refuses with a message that names the damaged file and says what to do. Each case
// copies one data directory that a real serve made and stopped cleanly (twice, so that LevelDB holds its items both
// in a table file and in its write-ahead log), damages it as a disk, an editor or a hurried person would, and runs
// serve on it as a user does.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { appKeyString } from '../../lib/pipeline/model.js';
import { clusterWithKubeconfigYaml, pipelineYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployed } from '../loop/harness.js';
import { writeFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe, type Cleanups, type Exited } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const APP = { cluster: { namespace: 'flux-system', name: 'fleet' }, kind: 'HelmRelease', name: 'podinfo' } as const;

/** Flips `count` bytes in the middle of a file. */
async function flipBytes(path: string, count = 16): Promise<void> {
  const bytes = await readFile(path);
  const start = Math.floor(bytes.length / 2);
  for (let i = start; i < Math.min(start + count, bytes.length); i++) bytes[i] = (bytes[i] ?? 0) ^ 0xff;
  await writeFile(path, bytes);
}

/** The store's files of one kind, the largest first. */
async function storeFiles(dataDir: string, extension: '.log' | '.ldb'): Promise<string[]> {
  const dir = join(dataDir, 'dynamodb');
  const names = (await readdir(dir)).filter((name) => name.endsWith(extension));
  const sized = await Promise.all(names.map(async (name) => ({ name, size: (await stat(join(dir, name))).size })));
  return sized.sort((a, b) => b.size - a.size).map(({ name }) => name);
}

function assertRefusal(result: Exited, file: RegExp): void {
  assert.equal(result.code, 1, `serve must refuse; stdout:\n${result.stdout}\nstderr:\n${result.stderr}`);
  assert.doesNotMatch(result.stdout, /"message":"ready"/);
  assert.match(result.stderr, file);
  assert.match(result.stderr, /pipelinectl restore/, 'says how to restore a backup');
  assert.match(result.stderr, /move .* away/, 'says how to start afresh');
}

describe('a damaged data directory', () => {
  let kube: FakeKubeApi;
  let root = '';
  let made = '';
  const cleanups: (() => unknown)[] = [];
  const suite: Cleanups = { after: (cleanup) => void cleanups.push(cleanup) };
  const configArgs = () => ['--config', join(root, 'config'), '--port', '0', '--poll-interval', '1h'];
  const serve = (dataDir: string, ...extra: string[]) =>
    runPipelinectl(['serve', ...configArgs(), '--data-dir', dataDir, ...extra]);

  /** A copy of the data directory made in `before`, for one case. */
  async function copy(t: TestContext): Promise<string> {
    const dataDir = join(root, `case-${t.name.replace(/\W+/g, '-')}`);
    await cp(made, dataDir, { recursive: true });
    return dataDir;
  }

  before(async () => {
    kube = await new FakeKubeApi().start();
    kube.put(deployed('6.9.2', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    root = await mkdtemp(join(tmpdir(), 'pipeline-controller-damage-'));
    await writeFiles(root, {
      'config/fleet.yaml': yamlDocuments(
        clusterWithKubeconfigYaml('fleet', kube.kubeconfig()),
        pipelineYaml({
          name: 'podinfo',
          environments: [
            { name: 'dev', targets: [{ namespace: 'dev', cluster: 'fleet' }] },
            { name: 'prod', targets: [{ namespace: 'prod', cluster: 'fleet' }], manual: true },
          ],
          strategy: 'notification',
        }),
      ),
    });
    made = join(root, 'made');
    // Two runs: the second start moves the first run's log into a table file, and the second run's poll records
    // dev's new revision in a new log.
    for (const devRevision of ['6.9.2', '6.9.3']) {
      kube.put(deployed(devRevision, 'dev'));
      const running = await startServe(suite, [...configArgs(), '--data-dir', made, '--poll-interval', '1s']);
      const backend = await openLocalBackend(made);
      try {
        await waitFor('both targets recorded', async () => {
          const statuses = await backend.store.getTargetStatuses([
            { ...APP, namespace: 'dev' },
            { ...APP, namespace: 'prod' },
          ]);
          return (
            statuses.size === 2 &&
            statuses.get(appKeyString({ ...APP, namespace: 'dev' }))?.status.revision === devRevision
          );
        });
      } finally {
        await backend.close();
      }
      const stopped = await running.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
    }
    assert.ok((await storeFiles(made, '.ldb')).length > 0, 'a table file');
    const [log] = await storeFiles(made, '.log');
    assert.ok(log && (await stat(join(made, 'dynamodb', log))).size > 0, 'a write-ahead log with entries');
  });

  after(async () => {
    for (const cleanup of cleanups) await cleanup();
    await kube.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('an undamaged copy starts', async (t) => {
    const dataDir = await copy(t);
    const running = await startServe(t, [...configArgs(), '--data-dir', dataDir]);
    const stopped = await running.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  });

  it('a write-ahead log cut in half: refused, naming the log', async (t) => {
    const dataDir = await copy(t);
    const [log] = await storeFiles(dataDir, '.log');
    assert.ok(log);
    const path = join(dataDir, 'dynamodb', log);
    await truncate(path, Math.floor((await stat(path)).size / 2));
    assertRefusal(await serve(dataDir), new RegExp(`dynamodb/${log.replace('.', '\\.')}`));
    // The other commands refuse it too, and nothing has opened (and so repaired away) the damage.
    const status = await runPipelinectl(['status', '--data-dir', dataDir]);
    assert.equal(status.code, 1);
    assert.match(status.stderr, new RegExp(`dynamodb/${log.replace('.', '\\.')}`));
    assertRefusal(await serve(dataDir), /changed \(\d+ bytes, was \d+\) since it was last closed cleanly/);
  });

  it('flipped bytes in a table file: refused, naming the file', async (t) => {
    const dataDir = await copy(t);
    const [table] = await storeFiles(dataDir, '.ldb');
    assert.ok(table);
    await flipBytes(join(dataDir, 'dynamodb', table));
    assertRefusal(await serve(dataDir), new RegExp(`dynamodb/${table.replace('.', '\\.')}`));
  });

  it('after a kill, damage is found by reading every entry', async (t) => {
    const dataDir = await copy(t);
    const killed = await startServe(t, [...configArgs(), '--data-dir', dataDir]);
    await killed.stop('SIGKILL');
    const [table] = await storeFiles(dataDir, '.ldb');
    assert.ok(table);
    await flipBytes(join(dataDir, 'dynamodb', table), 64);
    const result = await serve(dataDir);
    assertRefusal(result, /dynamodb/);
    assert.match(result.stderr, /[Cc]orrupt/);
  });

  it('a store LevelDB cannot open names the file and what to do', async (t) => {
    const dataDir = await copy(t);
    const killed = await startServe(t, [...configArgs(), '--data-dir', dataDir]);
    await killed.stop('SIGKILL');
    await writeFile(join(dataDir, 'dynamodb', 'CURRENT'), 'MANIFEST-999999');
    const result = await serve(dataDir);
    assertRefusal(result, /dynamodb/);
    assert.doesNotMatch(result.stderr, /^error: Database failed to open$/m);
    assert.match(result.stderr, /cannot be opened/);
  });

  it('a deleted master-key.json: refused, unless --new-master-key', async (t) => {
    const dataDir = await copy(t);
    const oldKey = await readFile(join(dataDir, 'master-key.json'), 'utf8');
    await rm(join(dataDir, 'master-key.json'));
    const refused = await serve(dataDir);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /master-key\.json/);
    assert.match(refused.stderr, /--new-master-key/);
    assert.match(refused.stderr, /pipelinectl flux-config/);

    const running = await startServe(t, [...configArgs(), '--data-dir', dataDir, '--new-master-key']);
    assert.ok(
      running.logLines().some((line) => line.level === 'warn' && /new master key/.test(String(line.message))),
      running.stdout(),
    );
    const newKey = await readFile(join(dataDir, 'master-key.json'), 'utf8');
    assert.notEqual(newKey, oldKey);
    const stopped = await running.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  });

  it('a missing dynamodb/ next to a master key: refused, unless --new-store', async (t) => {
    const dataDir = await copy(t);
    await rm(join(dataDir, 'dynamodb'), { recursive: true });
    const refused = await serve(dataDir);
    assertRefusal(refused, /dynamodb/);
    assert.match(refused.stderr, /--new-store/);

    const running = await startServe(t, [...configArgs(), '--data-dir', dataDir, '--new-store']);
    const stopped = await running.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  });
});
