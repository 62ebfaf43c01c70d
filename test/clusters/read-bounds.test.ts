// The bounds on reading a leaf cluster (lib/clusters/read-limits.ts), against the fake API server with the real
// @kubernetes/client-node: an API server that never ends a LIST, or answers with more bytes than any real one would,
// ends that cluster's read with a `too-large` ClusterAccessError, and the other clusters read in the same poll are
// read as usual. One test runs the reader in a process with a small heap, which it must survive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it, type TestContext } from 'node:test';
import { ClusterAccessError } from '../../lib/clusters/index.js';
import {
  MAX_LIST_ITEMS,
  MAX_LIST_PAGE_BYTES,
  MAX_LIST_PAGES,
  MAX_OBJECT_BYTES,
} from '../../lib/clusters/read-limits.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import type { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { helmRelease } from '../fixtures/flux-objects.js';
import { appKey, gitopsCluster, names, Registry, startFake } from './helpers.js';
import type { ListedCluster } from './list-in-child.js';
import { REPO_ROOT } from '../support/repo-root.js';

const HOSTILE: ObjectKey = { namespace: 'flux-system', name: 'hostile' };
const WELL: ObjectKey = { namespace: 'flux-system', name: 'well' };
/** A reader without bounds never ends these reads: a generous limit makes that a failure rather than a hang. */
const ENDS = { timeout: 300_000 };

function named(namespace: string, name: string, annotation?: string) {
  const object = helmRelease();
  object.metadata.namespace = namespace;
  object.metadata.name = name;
  if (annotation !== undefined) Object.assign(object.metadata, { annotations: { padding: annotation } });
  return object;
}

/** Two clusters, each on its own fake API server: `hostile` and `well` (which holds two HelmReleases). */
async function twoClusters(t: TestContext) {
  const hostile = await startFake(t);
  const well = await startFake(t, { objects: [named('apps', 'podinfo'), named('web', 'frontend')] });
  const registry = new Registry();
  for (const [key, fake] of [
    [HOSTILE, hostile],
    [WELL, well],
  ] as const) {
    registry.setCluster(gitopsCluster(key));
    registry.secrets.set({ namespace: key.namespace, name: `${key.name}-kubeconfig` }, { value: fake.kubeconfig() });
  }
  return { hostile, well, registry };
}

async function tooLarge(promise: Promise<unknown>): Promise<ClusterAccessError> {
  const error = await promise.then(
    () => assert.fail('expected the read to fail'),
    (error: unknown) => error,
  );
  return assertTooLarge(error);
}

function assertTooLarge(error: unknown): ClusterAccessError {
  assert.ok(error instanceof ClusterAccessError, `not a ClusterAccessError: ${String(error)}`);
  assert.equal(error.kind, 'too-large', error.message);
  assert.equal(error.retryable, false, 'not retried in a loop');
  return error;
}

function lists(fake: FakeKubeApi): number {
  return fake.count('list');
}

describe('reading a cluster is bounded', () => {
  it(
    `stops a LIST that never ends after ${MAX_LIST_PAGES} pages; the other cluster of the poll is read`,
    ENDS,
    async (t) => {
      const { hostile, registry } = await twoClusters(t);
      hostile.endlessLists({ itemsPerPage: 1 });
      const reader = registry.reader();

      const [endless, read] = await Promise.allSettled([
        reader.listApps(HOSTILE, 'HelmRelease', ['apps']),
        reader.listApps(WELL, 'HelmRelease', ['apps', 'web']),
      ]);
      const error = assertTooLarge(endless.status === 'rejected' ? endless.reason : undefined);
      assert.equal(
        error.message,
        `cluster flux-system/hostile: more than ${MAX_LIST_PAGES} pages listing helmreleases in all namespaces, ` +
          "over the reader's bounds (not read further)",
      );
      assert.equal(lists(hostile), MAX_LIST_PAGES, 'no page asked for past the bound');
      assert.equal(read.status, 'fulfilled');
      assert.deepEqual(names(read.status === 'fulfilled' ? read.value : []), ['apps/podinfo', 'web/frontend']);

      // Mended, the same reader reads it again.
      hostile.endlessLists(false);
      hostile.put(named('apps', 'podinfo'));
      assert.deepEqual(names(await reader.listApps(HOSTILE, 'HelmRelease', ['apps'])), ['apps/podinfo']);
    },
  );

  it(`stops a LIST of full pages at ${MAX_LIST_ITEMS} objects`, ENDS, async (t) => {
    const { hostile, registry } = await twoClusters(t);
    hostile.endlessLists();
    const error = await tooLarge(registry.reader().listApps(HOSTILE, 'Kustomization', ['apps']));
    assert.match(error.message, /^cluster flux-system\/hostile: more than 20000 objects listing kustomizations in all/);
    assert.equal(lists(hostile), MAX_LIST_ITEMS / 500 + 1, 'pages of 500 up to the bound, and the one over it');
  });

  it('counts the objects of the LISTs per namespace together', ENDS, async (t) => {
    const { hostile, registry } = await twoClusters(t);
    // Only namespaced LISTs allowed: the reader lists each namespace, within one budget.
    hostile.setUser(hostile.token, { name: 'reader', namespaces: ['a', 'b', 'c'] });
    hostile.endlessLists();
    const error = await tooLarge(registry.reader().listApps(HOSTILE, 'HelmRelease', ['a', 'b', 'c']));
    assert.match(error.message, /more than 20000 objects listing helmreleases in [abc],/);
    assert.ok(lists(hostile) <= MAX_LIST_ITEMS / 500 + 1 + 3, `${lists(hostile)} LISTs for 20,000 objects in all`);
  });

  it(`refuses an object over ${MAX_OBJECT_BYTES / 1024 / 1024} MiB, and reads the cluster's others`, async (t) => {
    const { hostile, registry } = await twoClusters(t);
    hostile.put(named('apps', 'huge', 'x'.repeat(MAX_OBJECT_BYTES)));
    hostile.put(named('apps', 'podinfo'));
    const reader = registry.reader();

    const error = await tooLarge(reader.getApp(appKey('HelmRelease', 'apps', 'huge', HOSTILE)));
    assert.equal(
      error.message,
      'cluster flux-system/hostile: an answer over 2 MiB reading helmreleases/huge in apps, ' +
        "over the reader's bounds (not read further)",
    );
    const podinfo = await reader.getApp(appKey('HelmRelease', 'apps', 'podinfo', HOSTILE));
    assert.equal((podinfo?.metadata as { name?: string } | undefined)?.name, 'podinfo');
  });

  it(`refuses a LIST page over ${MAX_LIST_PAGE_BYTES / 1024 / 1024} MiB`, async (t) => {
    const { hostile, registry } = await twoClusters(t);
    // 34 objects of 512 KiB: each under the bound of an object, together over the bound of a page.
    const padding = 'y'.repeat(512 * 1024);
    for (let i = 0; i < 34; i++) hostile.put(named('apps', `big-${i}`, padding));
    const error = await tooLarge(registry.reader().listApps(HOSTILE, 'HelmRelease', ['apps']));
    assert.match(error.message, /^cluster flux-system\/hostile: an answer over 16 MiB listing helmreleases in all/);
    assert.equal(lists(hostile), 1);
  });

  it('survives a LIST that never ends with a heap of 256 MiB, and reads the other cluster', ENDS, async (t) => {
    const { hostile, well } = await twoClusters(t);
    hostile.endlessLists();
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=256', '--import', 'tsx', 'test/clusters/list-in-child.ts'],
      { cwd: REPO_ROOT, env: { ...process.env, NODE_TEST_CONTEXT: undefined }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(
      JSON.stringify([
        { name: HOSTILE.name, kubeconfig: hostile.kubeconfig() },
        { name: WELL.name, kubeconfig: well.kubeconfig() },
      ]),
    );
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr.slice(-2000));
    const listed = JSON.parse(stdout) as ListedCluster[];
    assert.deepEqual(listed, [
      {
        cluster: 'flux-system/hostile',
        error: {
          kind: 'too-large',
          message:
            'cluster flux-system/hostile: more than 20000 objects listing helmreleases in all namespaces, ' +
            "over the reader's bounds (not read further)",
        },
      },
      { cluster: 'flux-system/well', names: ['apps/podinfo', 'web/frontend'] },
    ]);
  });
});
