// Who the promotion commit says wrote it: Weave committed as "Promotion Server", so by default so does this
// controller, whatever the token's user or GitHub App; a deployment may name another author (docs/promotion-strategies.md, "Pull requests").
// Read back from the fake GitHub, which keeps each commit as git does (author and committer lines).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitAuthorOf, commitAuthorProblems, DEFAULT_COMMIT_AUTHOR } from '../../lib/promotion/pull-request/index.js';
import { BRANCH, OWNER, REPO, prRequest, startFixture } from './github-support.js';

describe('the promotion commit author', () => {
  it("is Weave's Promotion Server by default, as author and committer, not the token's user", async () => {
    const fixture = await startFixture(undefined, { identity: { name: 'octo-bot', email: 'octo-bot@example.com' } });
    try {
      await fixture.promoter().promote(prRequest({ revision: '5.0.1' }));
      const head = fixture.fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      const commit = fixture.fake.commit(OWNER, REPO, head) ?? assert.fail('no commit');
      assert.equal(commit.author.name, 'Promotion Server');
      assert.equal(commit.author.email, DEFAULT_COMMIT_AUTHOR.email);
      assert.deepEqual(
        { name: commit.committer.name, email: commit.committer.email },
        { name: 'Promotion Server', email: DEFAULT_COMMIT_AUTHOR.email },
      );
      assert.deepEqual(DEFAULT_COMMIT_AUTHOR, {
        name: 'Promotion Server',
        email: 'promotion-server@pipeline-controller.invalid',
      });
    } finally {
      await fixture.stop();
    }
  });

  it('is the configured author when one is given, on every commit of the branch', async () => {
    const fixture = await startFixture();
    try {
      const author = { name: 'Release Bot', email: 'release-bot@acme.example' };
      const promoter = fixture.promoter({ commitAuthor: author });
      await promoter.promote(prRequest({ revision: '5.0.1' }));
      await promoter.promote(prRequest({ revision: '5.0.2' }));
      const head = fixture.fake.ref(OWNER, REPO, BRANCH) ?? assert.fail('no branch');
      const commit = fixture.fake.commit(OWNER, REPO, head) ?? assert.fail('no commit');
      assert.equal(commit.message, 'promoting version');
      assert.deepEqual({ name: commit.author.name, email: commit.author.email }, author);
      assert.deepEqual({ name: commit.committer.name, email: commit.committer.email }, author);
    } finally {
      await fixture.stop();
    }
  });

  it('fills what is not given from the default, and names what git cannot write', () => {
    assert.deepEqual(commitAuthorOf({}), DEFAULT_COMMIT_AUTHOR);
    assert.deepEqual(commitAuthorOf({ name: 'Release Bot' }), {
      name: 'Release Bot',
      email: DEFAULT_COMMIT_AUTHOR.email,
    });
    assert.deepEqual(commitAuthorOf({ email: 'ci@acme.example' }), {
      name: 'Promotion Server',
      email: 'ci@acme.example',
    });
    assert.deepEqual(commitAuthorProblems(DEFAULT_COMMIT_AUTHOR), []);
    assert.deepEqual(commitAuthorProblems({ name: ' ', email: 'ci@acme.example' }), [
      'the commit author name must not be empty',
    ]);
    assert.deepEqual(commitAuthorProblems({ name: 'A <b>', email: 'not an address' }), [
      'the commit author name must not contain "<", ">" or a line break',
      'the commit author e-mail must be an address such as name@example.com, without spaces, "<" or ">"',
    ]);
  });
});
