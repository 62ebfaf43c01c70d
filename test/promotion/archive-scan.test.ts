// The marker scan from one archive of the commit (archive.ts): a repository's first promotion reads its
// manifests from the host's archive in one request (GitHub's tarball, a redirect to a download address; GitLab's
// archive.tar.gz, Bitbucket Server's archive?format=tgz, Azure DevOps' zip of the items) rather than one request per
// file; a few files are still read one by one; a host that refuses the archive is read file by file, and an archive
// over its cap fails the promotion naming the cap. Against the fake GitHub, GitLab, Bitbucket Server and Azure
// DevOps, driven by Octokit, gitbeaker, the Bitbucket client and azure-devops-node-api.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { readTarGz, readZip } from '../../lib/promotion/pull-request/archive.js';
import { tarGz, zipArchive } from '../../lib/testing/tar-archive-writer.js';
import { PromotionError } from '../../lib/promotion/index.js';
import { ArchiveTooLargeError, type ArchiveReadOptions } from '../../lib/promotion/pull-request/archive-read.js';
import { ARCHIVE_AFTER_READS, PullRequestPromoter } from '../../lib/promotion/pull-request/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import type { FakeHostUnderTest } from './git-host-under-test.js';
import { prRequest, startGitHubUnderTest } from './github-support.js';
import { startGitLabUnderTest } from './gitlab-support.js';
import { startBitbucketServerUnderTest } from './bitbucket-server-support.js';
import { startAzureDevOpsUnderTest } from './azure-devops-support.js';

const SECRET = { namespace: 'apps', name: 'git' };
const MARKER = '{"$promotion": "apps:shop:prod"}';

/** `count` manifests without a marker, in folders, one with a long path, and the one file holding the marker. */
function repository(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  // Each its own content: identical files are one blob, read once whatever the number of paths.
  for (let i = 0; i < count; i++) files[`apps/team-${i % 20}/service-${i}.yaml`] = `name: service-${i}\n`;
  files[`${'deeply/nested/'.repeat(10)}values.yaml`] = 'replicas: 1\n';
  files['README.md'] = '# fleet\n';
  files['apps/prod/shop.yaml'] = `image:\n  tag: "1.0.0" # ${MARKER}\n`;
  return files;
}

// What listing the tree costs besides: one request on GitHub and GitLab; Bitbucket Server lists it directory by
// directory (this repository has about 35), whatever the archive saves.
for (const [name, start, listing] of [
  ['GitHub', startGitHubUnderTest, 0],
  ['GitLab', startGitLabUnderTest, 0],
  ['Bitbucket Server', startBitbucketServerUnderTest, 45],
  ['Azure DevOps', startAzureDevOpsUnderTest, 0],
] as const)
  describe(`the marker scan from an archive of the commit (${name})`, () => {
    let fake: FakeHostUnderTest;
    before(async () => {
      fake = await start();
    });
    after(() => fake.stop());

    const promoterOf = (archiveLimits?: { maxArchiveBytes: number }) =>
      new PullRequestPromoter({
        secrets: new StaticSecretSource([{ key: SECRET, values: fake.secretValues }]),
        hosts: [fake.host()],
        apiUrls: { [fake.type]: fake.apiUrl },
        ...(archiveLimits ? { archiveLimits } : {}),
      });
    const request = (revision: string) =>
      prRequest({
        revision,
        namespace: 'apps',
        name: 'shop',
        type: fake.type,
        url: fake.repositoryUrl,
        secretName: SECRET.name,
      });

    it('reads 500 manifests in one archive request, and opens the pull request that sets the marker', async () => {
      fake.createRepository(repository(500));
      fake.resetRequests();
      await promoterOf().promote(request('1.1.0'));
      // Without the archive: one read of each of the 502 manifests besides.
      const requests = fake.requestCount();
      assert.ok(requests <= 20 + listing, `${requests} requests for a 500-file repository`);
      assert.equal(
        fake.files('promotion-apps-shop-prod')['apps/prod/shop.yaml'],
        `image:\n  tag: "1.1.0" # ${MARKER}\n`,
      );
    });

    it('reads a few changed files one by one, and a repeat promotion costs what it did', async () => {
      const changed = Object.fromEntries(
        Array.from({ length: ARCHIVE_AFTER_READS }, (_, i) => [
          `apps/team-1/service-${i}/values.yaml`,
          'replicas: 3\n',
        ]),
      );
      fake.commitFiles('main', changed);
      fake.resetRequests();
      await promoterOf().promote(request('1.2.0'));
      // The base, the tree, the changed blobs one by one, the branch, the pull request: no archive.
      assert.ok(fake.requestCount() <= 12 + ARCHIVE_AFTER_READS + listing, `${fake.requestCount()} requests`);
      assert.equal(
        fake.files('promotion-apps-shop-prod')['apps/prod/shop.yaml'],
        `image:\n  tag: "1.2.0" # ${MARKER}\n`,
      );
    });

    it('an archive over its cap fails the promotion, naming the cap', async () => {
      fake.commitFiles(
        'main',
        Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`apps/new-${i}/values.yaml`, `replicas: ${i}\n`])),
      );
      await assert.rejects(promoterOf({ maxArchiveBytes: 512 }).promote(request('1.3.0')), (error: unknown) => {
        assert.ok(error instanceof PromotionError);
        assert.equal(error.kind, 'Unsupported');
        assert.match(error.message, /the archive of \S+ in \S+ is over 0 MiB/);
        return true;
      });
    });
  });

describe('one rule for the files an archive gives, gzipped tar or zip', () => {
  const files = new Map([
    ['apps/a.yaml', Buffer.from('name: a\n')],
    ['apps/large.yaml', Buffer.from(`data: "${'x'.repeat(100)}"\n`)],
    ['apps/unwanted.yaml', Buffer.from('name: unwanted\n')],
    ['README.md', Buffer.from('# fleet\n')],
  ]);
  const options = (kept: Map<string, string>) => ({
    maxFileBytes: 64,
    maxArchiveBytes: 1024 * 1024,
    maxExpandedBytes: 1024 * 1024,
    wants: (path: string) => path !== 'apps/unwanted.yaml',
    onFile: ({ path, content }: { path: string; content: Buffer }) => kept.set(path, content.toString('utf8')),
  });

  for (const [format, read] of [
    [
      'tar.gz',
      (kept: Map<string, string>) =>
        readTarGz(Readable.from([tarGz('top', files)]), 'a commit', { ...options(kept), stripTopDirectory: true }),
    ],
    // Streamed as Azure DevOps writes it: each size after the file's data, so a file's size shows only as it comes.
    ['zip', (kept: Map<string, string>) => readZip(Readable.from([zipArchive(files)]), 'a commit', options(kept))],
  ] as const)
    it(`keeps the wanted files no larger than the limit (${format})`, async () => {
      const kept = new Map<string, string>();
      await read(kept);
      assert.deepEqual(Object.fromEntries(kept), { 'apps/a.yaml': 'name: a\n', 'README.md': '# fleet\n' });
    });
});

describe('an archive read ends on a cap or a failure, gzipped tar or zip', () => {
  const MiB = 1024 * 1024;
  const readers = [
    [
      'tar.gz',
      (files: ReadonlyMap<string, Buffer>, options: ArchiveReadOptions) =>
        readTarGz(Readable.from([tarGz('top', files)]), 'a commit', { ...options, stripTopDirectory: true }),
    ],
    [
      'zip',
      (files: ReadonlyMap<string, Buffer>, options: ArchiveReadOptions) =>
        readZip(Readable.from([zipArchive(files)]), 'a commit', options),
    ],
  ] as const;

  for (const [format, read] of readers) {
    it(`fails naming the cap when the archive expands past it, kept files or not (${format})`, async () => {
      // 3 MiB of one byte: a few KiB compressed, well within the compressed cap, and no file anyone asked for.
      const files = new Map([
        ['apps/a.yaml', Buffer.from('name: a\n')],
        ['blobs/zeros.bin', Buffer.alloc(3 * MiB)],
      ]);
      const archived = format === 'zip' ? zipArchive(files) : tarGz('top', files);
      assert.ok(archived.length < 64 * 1024, `the archive is ${archived.length} bytes`);
      const kept: string[] = [];
      await assert.rejects(
        read(files, {
          maxFileBytes: MiB,
          maxArchiveBytes: MiB,
          maxExpandedBytes: 2 * MiB,
          wants: (path) => path.endsWith('.yaml'),
          onFile: ({ path }) => void kept.push(path),
        }),
        (error: unknown) => {
          assert.ok(error instanceof ArchiveTooLargeError);
          assert.equal(error.measure, 'expanded');
          assert.equal(
            error.message,
            'the archive of a commit expands to over 2 MiB, the most a marker scan unpacks from one request',
          );
          return true;
        },
      );
      assert.ok(kept.length <= 1);
    });

    it(`stops at the first file its reader refuses, whatever the format (${format})`, async () => {
      const files = new Map(
        Array.from({ length: 5 }, (_, i) => [`apps/f-${i}.yaml`, Buffer.from(`name: f-${i}\n`)] as const),
      );
      const handed: string[] = [];
      await assert.rejects(
        read(files, {
          maxFileBytes: MiB,
          maxArchiveBytes: MiB,
          maxExpandedBytes: MiB,
          wants: () => true,
          onFile: ({ path }) => {
            handed.push(path);
            throw new Error(`enough after ${path}`);
          },
        }),
        { message: 'enough after apps/f-0.yaml' },
      );
      assert.deepEqual(handed, ['apps/f-0.yaml']);
    });
  }
  it('skips an entry in a compression it has no decoder for, and keeps the files after it (zip)', async () => {
    const files = new Map([
      ['apps/a.yaml', Buffer.from('name: a\n')],
      ['apps/b.yaml', Buffer.from('name: b\n')],
      ['apps/c.yaml', Buffer.from('name: c\n')],
    ]);
    const kept = new Map<string, string>();
    await readZip(Readable.from([zipArchive(files, new Map([['apps/b.yaml', 14]]))]), 'a commit', {
      maxFileBytes: 1024,
      maxArchiveBytes: 1024 * 1024,
      maxExpandedBytes: 1024 * 1024,
      wants: () => true,
      onFile: ({ path, content }) => void kept.set(path, content.toString('utf8')),
    });
    assert.deepEqual(Object.fromEntries(kept), { 'apps/a.yaml': 'name: a\n', 'apps/c.yaml': 'name: c\n' });
  });
});
