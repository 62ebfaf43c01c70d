// The tree id the GitHub adapter computes from a base tree's listing with files replaced (it tells whether a branch
// already holds a promotion without writing a tree): the id git gives, and the id GitHub gives the same tree.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Octokit } from '@octokit/rest';
import { treeIdAfter, type ListedTreeEntry } from '../../lib/promotion/github/tree-id.js';
import { FakeGitHub, gitBlobSha } from '../../lib/testing/fake-github.js';

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

describe('GitHub tree id of a listing with replaced files', () => {
  it("is git's id: a.txt, a-b, a/b/c.yaml and an executable run.sh, as `git write-tree` gives it", () => {
    // The listing before c.yaml changed; the directories' ids in it are stale on purpose: they are recomputed.
    const listing: ListedTreeEntry[] = [
      { path: 'a', mode: '040000', type: 'tree', sha: '1'.repeat(40) },
      { path: 'a/b', mode: '040000', type: 'tree', sha: '2'.repeat(40) },
      { path: 'a/b/c.yaml', mode: '100644', type: 'blob', sha: gitBlobSha('x: 0\n') },
      { path: 'a-b', mode: '100644', type: 'blob', sha: gitBlobSha('y\n') },
      { path: 'a.txt', mode: '100644', type: 'blob', sha: gitBlobSha('hello\n') },
      { path: 'run.sh', mode: '100755', type: 'blob', sha: gitBlobSha('#!/bin/sh\n') },
    ];
    const id = treeIdAfter(listing, [{ path: 'a/b/c.yaml', mode: '100644', blobId: gitBlobSha('x: 1\n') }]);
    // The same tree's id in test/promotion/github-fake.test.ts, checked there against git.
    assert.equal(id, '3488dc0f01d7ec71ab37bacebc9f2a1c3e9ff850');
  });

  it('is undefined when a replaced path is not a file of the listing', () => {
    const listing: ListedTreeEntry[] = [
      { path: 'apps', mode: '040000', type: 'tree', sha: '1'.repeat(40) },
      { path: 'apps/app.yaml', mode: '100644', type: 'blob', sha: gitBlobSha('a\n') },
    ];
    const blobId = gitBlobSha('b\n');
    assert.equal(treeIdAfter(listing, [{ path: 'apps', mode: '100644', blobId }]), undefined);
    assert.equal(treeIdAfter(listing, [{ path: 'other/app.yaml', mode: '100644', blobId }]), undefined);
    assert.equal(treeIdAfter(listing, []), undefined);
  });

  describe('against the tree GitHub makes', () => {
    let fake: FakeGitHub;
    let gh: Octokit;
    const repo = { owner: 'acme', repo: 'fleet' };

    before(async () => {
      fake = await FakeGitHub.start();
      fake.createRepository('acme', 'fleet', {
        'README.md': '# fleet\n',
        'apps/prod/podinfo.yaml': 'version: 1.0.0\n',
        'apps/prod-eu/podinfo.yaml': 'version: 1.0.0\n',
        'apps/prod.yaml': 'kind: List\n',
        'apps/staging/podinfo.yaml': 'version: 1.0.0\n',
        'clusters/dev/flux-system/gotk-sync.yaml': 'kind: Kustomization\n',
      });
      gh = new Octokit({ auth: fake.token, baseUrl: fake.url, log: quiet });
    });
    after(() => fake.stop());

    it('gives the id of the tree GitHub writes with the same files inline, among every kind of entry', async () => {
      // An executable file, a symlink and a submodule beside the manifests.
      const main = fake.ref('acme', 'fleet', 'main') ?? assert.fail('no main');
      const baseTree = fake.commit('acme', 'fleet', main)?.tree ?? assert.fail('no tree');
      const { data: richer } = await gh.git.createTree({
        ...repo,
        base_tree: baseTree,
        tree: [
          { path: 'bin/release.sh', mode: '100755', type: 'blob', content: '#!/bin/sh\necho release\n' },
          { path: 'apps/current', mode: '120000', type: 'blob', content: 'prod' },
          { path: 'vendor/charts', mode: '160000', type: 'commit', sha: 'c'.repeat(40) },
        ],
      });
      const { data: listed } = await gh.git.getTree({ ...repo, tree_sha: richer.sha, recursive: 'true' });
      const entries = listed.tree.map((entry) => ({
        path: entry.path ?? '',
        mode: entry.mode ?? '',
        type: entry.type as ListedTreeEntry['type'],
        sha: entry.sha ?? '',
      }));
      const changes = [
        { path: 'apps/prod/podinfo.yaml', mode: '100644', content: 'version: 1.0.1\n' },
        { path: 'apps/prod-eu/podinfo.yaml', mode: '100644', content: 'version: 1.0.1\n' },
        { path: 'bin/release.sh', mode: '100755', content: '#!/bin/sh\necho release 2\n' },
      ] as const;
      const computed = treeIdAfter(
        entries,
        changes.map((change) => ({ path: change.path, mode: change.mode, blobId: gitBlobSha(change.content) })),
      );
      const { data: written } = await gh.git.createTree({
        ...repo,
        base_tree: richer.sha,
        tree: changes.map((change) => ({
          path: change.path,
          mode: change.mode,
          type: 'blob',
          content: change.content,
        })),
      });
      assert.equal(computed, written.sha);
      assert.notEqual(computed, richer.sha);
    });
  });
});
