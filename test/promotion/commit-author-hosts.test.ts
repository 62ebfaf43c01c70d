// A commit's author as each Git host reports it (HostRepository.commitAuthor), through each adapter and its host's
// client against the host's fake: one line `Name <email>`, read with one request, the values cleaned and cut short
// as untrusted text, and a failure mapped as the adapter's other reads are.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isPrintable } from '../../lib/logging/printable.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { repositoryAddress, type RepositoryAddress } from '../../lib/pipeline/repository-address.js';
import { deferredAzureDevOpsHost } from '../../lib/promotion/azure-devops/deferred-host.js';
import { deferredBitbucketServerHost } from '../../lib/promotion/bitbucket-server/deferred-host.js';
import { deferredGitHubHost } from '../../lib/promotion/github/deferred-host.js';
import { deferredGitLabHost } from '../../lib/promotion/gitlab/deferred-host.js';
import { PromotionError } from '../../lib/promotion/port.js';
import type { GitHost, HostRepository } from '../../lib/promotion/pull-request/host.js';
import { MAX_AUTHOR_LENGTH } from '../../lib/promotion/pull-request/reported-author.js';
import type { FakeHostUnderTest } from './git-host-under-test.js';
import { HOSTS, SECRET } from './pull-request-subject.js';

/** Each host as the runtime offers it: its adapter loaded on first use. */
const DEFERRED: Record<GitProviderType, () => GitHost> = {
  github: () => deferredGitHubHost(),
  gitlab: () => deferredGitLabHost(),
  'bitbucket-server': () => deferredBitbucketServerHost(),
  'azure-devops': () => deferredAzureDevOpsHost(),
};

for (const [type, start] of HOSTS) {
  describe(`${type}: the author of a commit`, () => {
    let fake: FakeHostUnderTest;
    let host: GitHost;
    let repository: HostRepository;
    let address: RepositoryAddress;

    /** A commit on main by this author; its id. */
    const commitBy = (author: { name: string; email: string }, file: string): string => {
      fake.commitFiles('main', { [file]: `${file}\n` }, author);
      const head = fake.branchHead('main');
      assert.ok(head);
      return head;
    };

    before(async () => {
      fake = await start();
      fake.createRepository({ 'pipelines/podinfo.yaml': 'kind: Pipeline\n' });
      const located = repositoryAddress(type, fake.repositoryUrl);
      assert.ok(located.ok);
      address = located.address;
      host = fake.host({ retries: 0 });
      repository = host.open(address, fake.apiUrl, SECRET, fake.secretValues);
      // The client's first call may ask the host how to call it (Azure DevOps' route discovery): not counted below.
      await repository.branchHead('main');
    });
    after(() => fake.stop());

    it('is the author the commit names, as `Name <email>`, read with one request', async () => {
      const commit = commitBy({ name: 'Ada Lovelace', email: 'ada@example.com' }, 'a.txt');
      fake.resetRequests();
      assert.equal(await repository.commitAuthor(commit), 'Ada Lovelace <ada@example.com>');
      assert.equal(fake.requestCount(), 1);
    });

    it('is the same through the host whose adapter is loaded on first use', async () => {
      const commit = commitBy({ name: 'Ada Lovelace', email: 'ada@example.com' }, 'deferred.txt');
      const deferred = DEFERRED[type]().open(address, fake.apiUrl, SECRET, fake.secretValues);
      assert.equal(await deferred.commitAuthor(commit), 'Ada Lovelace <ada@example.com>');
    });

    it('is the name alone when the commit has no e-mail', async () => {
      const commit = commitBy({ name: 'Grace Hopper', email: '' }, 'b.txt');
      assert.equal(await repository.commitAuthor(commit), 'Grace Hopper');
    });

    it('is printable and at most 200 characters, whatever the pusher wrote', async () => {
      const name = `\u001b[2J\u202eMallory <root@example.com>\r\n${'x'.repeat(5000)}`;
      const commit = commitBy({ name, email: `mallory@example.com\u0007${'y'.repeat(5000)}` }, 'c.txt');
      const author = await repository.commitAuthor(commit);
      assert.ok(author !== undefined);
      assert.ok(author.length <= MAX_AUTHOR_LENGTH, `${author.length} characters`);
      assert.ok(isPrintable(author), author);
      assert.match(author, /^\[2J Mallory root@example\.com x+… <mallory@example\.com y+…>$/);
    });

    it('fails as the adapter’s other reads do for a commit the host does not have', async () => {
      const error = await repository.commitAuthor('0123456789abcdef0123456789abcdef01234567').then(
        () => assert.fail('an unknown commit has an author'),
        (thrown: unknown) => host.toPromotionError(thrown, SECRET),
      );
      assert.ok(error instanceof PromotionError);
      assert.equal(error.retryable, false, error.message);
    });

    it('is retryable when the host fails', async () => {
      const commit = commitBy({ name: 'Ada Lovelace', email: 'ada@example.com' }, 'd.txt');
      fake.failNext(503);
      const error = await repository.commitAuthor(commit).then(
        () => assert.fail('the host failed'),
        (thrown: unknown) => host.toPromotionError(thrown, SECRET),
      );
      assert.equal(error.retryable, true, error.message);
    });
  });
}
