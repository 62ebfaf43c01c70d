// `pipelinectl backup` and `restore` as an operator runs them: a backup taken while serve runs, restored into a fresh
// data directory, holds the same items, master key and Secrets, shows the same status, and serves; restore refuses
// a running serve, a data directory in use, and a backup file that is incomplete or changed, writing nothing.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { backupDataDir } from '../../lib/cli/operations/backup.js';
import { restoreDataDir } from '../../lib/cli/operations/restore.js';
import type { FreezeSwitch } from '../../lib/pipeline/freeze.js';
import { startLocalDynamo } from '../../lib/local/dynamo.js';
import { createDynamoStore, type Store } from '../../lib/store/index.js';
import { clusterWithKubeconfigYaml, pipelineYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployed } from '../loop/harness.js';
import { tempFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { storeItems } from './store-items.js';

const fileOf = (stdout: string): string => {
  const match = /^backed up \d+ items, master-key\.json and secrets\.json to (.+)$/m.exec(stdout);
  assert.ok(match?.[1], stdout);
  return match[1];
};

describe('pipelinectl backup and restore', () => {
  it('a backup taken while serve runs restores into a fresh data directory with the same items and status', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    kube.put(deployed('6.9.2', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    const root = await tempFiles(t, {
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
      'backups/.keep': '',
    });
    const dataDir = join(root, 'data');
    const restored = join(root, 'restored');
    const serveArgs = ['--config', join(root, 'config'), '--port', '0', '--poll-interval', '1h'];
    const serve = await startServe(t, [...serveArgs, '--data-dir', dataDir]);
    // The first poll (at start) records both targets, asks for the prod approval and records that dev and prod
    // passed (the metrics' facts), then the cluster's poll digest, last; then the store stays still.
    await waitFor('the approval request, both environments passed and the poll digest', async () => {
      const items = await storeItems(dataDir);
      const passed = items.filter((item) => item.entity?.S === 'audit' && item.type?.S === 'environment-passed');
      return (
        items.some((item) => item.sk?.S === 'APPROVAL#prod') &&
        passed.length === 2 &&
        items.some((item) => item.pk?.S?.startsWith('POLLDIGESTS#'))
      );
    });
    const original = await storeItems(dataDir);

    // 1. The backup, through the running serve: one file, the owner's only.
    const backup = await runPipelinectl(['backup', '--data-dir', dataDir, '--to', join(root, 'backups')]);
    assert.equal(backup.code, 0, backup.stderr);
    const file = fileOf(backup.stdout);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const [headerLine] = (await readFile(file, 'utf8')).split('\n');
    const header = JSON.parse(headerLine ?? '') as Record<string, unknown>;
    assert.equal(header.format, 'pipelinectl-backup');
    assert.equal(header.version, 1);
    assert.equal(header.tableName, 'pipeline-controller');
    assert.equal(header.items, original.length);
    assert.ok(!Number.isNaN(Date.parse(String(header.createdAt))));

    // 2. Not over a running serve's data directory.
    const overServe = await runPipelinectl(['restore', '--data-dir', dataDir, '--from', file, '--force']);
    assert.equal(overServe.code, 1);
    assert.match(overServe.stderr, /pipelinectl serve .*is running/);

    // 3. Into a fresh data directory: the same items, keys and Secrets, and the same status.
    const restore = await runPipelinectl(['restore', '--data-dir', restored, '--from', file]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, new RegExp(`^restored ${original.length} items`));
    assert.deepEqual(await storeItems(restored), original);
    for (const name of ['master-key.json', 'secrets.json']) {
      assert.equal(await readFile(join(restored, name), 'utf8'), await readFile(join(dataDir, name), 'utf8'), name);
      assert.equal((await stat(join(restored, name))).mode & 0o777, 0o600, name);
    }
    assert.equal((await stat(restored)).mode & 0o777, 0o700);
    const statusOf = (dir: string) => runPipelinectl(['status', '-o', 'json', '--data-dir', dir]);
    const [running, copy] = await Promise.all([statusOf(dataDir), statusOf(restored)]);
    assert.equal(running.code, 0, running.stderr);
    assert.equal(copy.code, 0, copy.stderr);
    assert.equal(copy.stdout, running.stdout);
    assert.match(copy.stdout, /"waiting": true/);

    // 4. Not into a data directory that holds something, unless --force, which moves the old contents aside.
    const again = await runPipelinectl(['restore', '--data-dir', restored, '--from', file]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty/);
    assert.match(again.stderr, /--force/);
    const forced = await runPipelinectl(['restore', '--data-dir', restored, '--from', file, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    const aside = (await readdir(root)).filter((name) => name.startsWith('restored.before-restore-'));
    assert.equal(aside.length, 1, `the previous contents are kept aside: ${(await readdir(root)).join(', ')}`);
    assert.match(forced.stdout, new RegExp(aside[0] ?? 'none'));
    assert.deepEqual(await storeItems(restored), original);

    // 5. A backup file that is incomplete, or changed after it was written, restores nothing.
    const text = await readFile(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    const damaged = {
      'cut.jsonl': `${lines.slice(0, -1).join('\n')}\n`,
      'edited.jsonl': text.replace('"APPROVAL#prod"', '"APPROVAL#prud"'),
      'not-a-backup.jsonl': '{"hello":"world"}\n',
    };
    for (const [name, content] of Object.entries(damaged)) {
      await writeFile(join(root, name), content);
      const target = join(root, `from-${name}`);
      const refused = await runPipelinectl(['restore', '--data-dir', target, '--from', join(root, name)]);
      assert.equal(refused.code, 1, `${name}: ${refused.stdout}`);
      assert.match(refused.stderr, new RegExp(name.replace('.', '\\.')));
      assert.equal(existsSync(target), false, `${name}: nothing written`);
    }
    assert.deepEqual(
      (await readdir(root)).filter((name) => name.includes('.restoring-')),
      [],
      'no half-restored directory left behind',
    );

    // 6. The restored data directory serves, and a backup also works with no serve running.
    const stopped = await serve.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    const second = await startServe(t, [...serveArgs, '--data-dir', restored]);
    assert.equal((await second.stop()).code, 0);
    const offline = await runPipelinectl(['backup', '--data-dir', restored, '--to', join(root, 'offline.jsonl')]);
    assert.equal(offline.code, 0, offline.stderr);
    assert.equal(fileOf(offline.stdout), join(root, 'offline.jsonl'));
    const exists = await runPipelinectl(['backup', '--data-dir', restored, '--to', join(root, 'offline.jsonl')]);
    assert.equal(exists.code, 1, 'an existing file is never overwritten');
    assert.match(exists.stderr, /offline\.jsonl already exists/);
  });

  it('keeps stop switches and the approvals and rejection of a marker through backup and restore', async (t) => {
    const root = await tempFiles(t, { 'backups/.keep': '' });
    const [dataDir, restored] = [join(root, 'data'), join(root, 'restored')];
    const podinfo = { namespace: 'flux-system', name: 'podinfo' };
    const freezes: FreezeSwitch[] = [
      { scope: { installation: true }, reason: 'incident 4711', by: 'alice', at: '2026-11-01T10:00:00.000Z' },
      {
        scope: { pipeline: podinfo },
        env: 'prod',
        reason: 'weekend',
        by: 'bob',
        at: '2026-11-01T10:01:00.000Z',
        until: '2026-11-03T08:00:00.000Z',
        windows: [{ from: 'Fri 16:00', to: 'Mon 08:00', timeZone: 'Europe/Berlin' }],
      },
    ];
    const withStore = async <T>(dir: string, use: (store: Store) => Promise<T>): Promise<T> => {
      const dynamo = await startLocalDynamo(dir);
      try {
        return await use(createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }));
      } finally {
        await dynamo.stop();
      }
    };
    const read = (store: Store) =>
      Promise.all([store.listFreezes(), store.getApproval(podinfo, 'prod'), store.getApproval(podinfo, 'qa')]);
    const original = await withStore(dataDir, async (store) => {
      for (const freeze of freezes) await store.setFreeze(freeze);
      await store.requestApproval(podinfo, 'prod', '6.9.2', new Date('2026-11-01T10:00:00Z'));
      await store.approve(podinfo, 'prod', '6.9.2', 'alice', new Date('2026-11-01T10:02:00Z'), 3);
      await store.approve(podinfo, 'prod', '6.9.2', 'bob', new Date('2026-11-01T10:03:00Z'), 3);
      await store.requestApproval(podinfo, 'qa', '6.9.2', new Date('2026-11-01T10:00:00Z'));
      await store.reject(podinfo, 'qa', '6.9.2', 'carol', 'breaks checkout', new Date('2026-11-01T10:04:00Z'));
      return read(store);
    });
    assert.equal(original[0].length, 2);
    assert.equal(original[1]?.approvals?.length, 2);
    assert.equal(original[2]?.rejectedBy, 'carol');

    const { file } = await backupDataDir(dataDir, join(root, 'backups'));
    await restoreDataDir(restored, file, { force: false });

    await withStore(restored, async (store) => {
      assert.deepEqual(await read(store), original);
      // The set of approvers came along too: the third approver approves, a repeated one still counts once.
      assert.equal(
        await store.approve(podinfo, 'prod', '6.9.2', 'alice', new Date('2026-11-01T10:05:00Z'), 3),
        'already-counted',
      );
      assert.equal(
        await store.approve(podinfo, 'prod', '6.9.2', 'dave', new Date('2026-11-01T10:06:00Z'), 3),
        'approved',
      );
    });
  });
});
