// What the pull request says, on every Git host alike (the hosts' fakes record the body as the host's API took it):
// a promotion's body is Weave's block byte for byte, then the evidence (docs/evidence.md), and the body follows the
// pull request when it is updated; a rollback (docs/rollback.md) is its own pull request on its own branch, with the
// bytes a promotion to its revision writes, made once, and never merged by us.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PromotionEvidence } from '../../lib/promotion/index.js';
import { setMarkedValues } from '../../lib/promotion/markers.js';
import { pullRequestBody } from '../../lib/promotion/pull-request/index.js';
import { BRANCH, HOSTS, MARKED_FILES, subjectOf, type Subject } from './pull-request-subject.js';

/** dev's two targets, healthy on `revision` since 10:00 and 10:05:30, after a 30m soak. */
function devEvidence(revision: string, since = '2026-11-01T10:00:00.000Z'): PromotionEvidence {
  return {
    from: 'dev',
    targets: [
      { name: 'dev/apps/podinfo', revision, phase: 'Ready', healthySince: since },
      { name: 'dev/apps-eu/podinfo', revision, phase: 'Ready', healthySince: '2026-11-01T10:05:30.000Z' },
    ],
    soak: '30m',
  };
}

/** The evidence section devEvidence gives, as a reviewer reads it (docs/evidence.md). */
function devEvidenceSection(revision: string, since = '2026-11-01 10:00:00'): string {
  return [
    '### Evidence',
    '',
    'Promoted from **dev**, soak 30m served.',
    '',
    '| target | revision | phase | healthy since (UTC) |',
    '| --- | --- | --- | --- |',
    `| dev/apps/podinfo | ${revision} | Ready | ${since} |`,
    `| dev/apps-eu/podinfo | ${revision} | Ready | 2026-11-01 10:05:30 |`,
  ].join('\n');
}

const WEAVE_BODY = [
  '<details>',
  '<summary>metadata</summary>',
  '!!! DO NOT EDIT !!!',
  '',
  'foo/bar/prod',
  '</details>',
];

for (const [type, start] of HOSTS) {
  describe(`${type} pull requests: the evidence below Weave's block`, () => {
    let subject: Subject;
    before(async () => {
      subject = subjectOf(await start());
      subject.fake.createRepository(MARKED_FILES);
    });
    after(() => subject.fake.stop());

    const openPull = () => {
      const open = subject.fake.pullRequests().filter((pull) => pull.state === 'open');
      assert.equal(open.length, 1, 'one open pull request');
      return open[0] ?? assert.fail('no pull request');
    };

    it("keeps Weave's block byte for byte and shows the evidence after it", async () => {
      const url = await subject.promoteWith('6.9.2', devEvidence('6.9.2'));
      const pull = openPull();
      assert.equal(pull.url, url);
      assert.equal(pull.body, [...WEAVE_BODY, '', devEvidenceSection('6.9.2')].join('\n'));
    });

    it('updates the body with the pull request: for a newer revision, and for a resumed attempt', async () => {
      const url = await subject.promoteWith('6.9.3', devEvidence('6.9.3'));
      assert.equal(url, openPull().url, 'the same pull request');
      assert.equal(openPull().title, 'Promote foo/bar in prod to 6.9.3');
      assert.equal(openPull().body, [...WEAVE_BODY, '', devEvidenceSection('6.9.3')].join('\n'));

      // The same revision again (a resumed attempt), the evidence observed later: dev became healthy again at 11:00.
      assert.equal(await subject.promoteWith('6.9.3', devEvidence('6.9.3', '2026-11-01T11:00:00.000Z')), url);
      assert.equal(openPull().body, [...WEAVE_BODY, '', devEvidenceSection('6.9.3', '2026-11-01 11:00:00')].join('\n'));
      assert.equal(subject.fake.pullRequests().length, 1, 'never a second pull request');
    });

    it("is exactly Weave's body when the request has no evidence", async () => {
      await subject.promoteWith('6.9.3', undefined);
      assert.equal(openPull().body, WEAVE_BODY.join('\n'));
      assert.equal(openPull().body, pullRequestBody('foo', 'bar', 'prod'));
    });

    it('cuts the table to fit the host, saying how many targets were left out', async () => {
      const many: PromotionEvidence = {
        from: 'dev',
        targets: Array.from({ length: 600 }, (_, index) => ({
          name: `dev-${index}/apps/podinfo`,
          revision: '7.0.0',
          phase: 'Ready',
          healthySince: '2026-11-01T10:00:00.000Z',
        })),
      };
      await subject.promoteWith('7.0.0', many);
      const { body } = openPull();
      assert.ok(body.startsWith(`${WEAVE_BODY.join('\n')}\n\n### Evidence\n\nPromoted from **dev**.\n`));
      assert.ok(body.length <= (type === 'azure-devops' ? 4000 : 32_000), `${body.length} characters`);
      assert.match(body, /\| dev-0\/apps\/podinfo \| 7\.0\.0 \| Ready \| 2026-11-01 10:00:00 \|\n/);
      assert.match(body, /\n\n… and \d+ more targets, left out for length\.$/);
    });
  });

  describe(`${type} pull requests: a rollback`, () => {
    let subject: Subject;
    const ROLLBACK_BRANCH = 'rollback-foo-bar-prod-6.9.1';
    const ROLLBACK_TITLE = 'Roll back prod from 6.9.1 to 6.9.0 (foo/bar)';
    const FAILED: PromotionEvidence = {
      from: 'prod',
      targets: [{ name: 'prod/prod/podinfo', revision: '6.9.1', phase: 'Failed' }],
    };
    before(async () => {
      subject = subjectOf(await start());
      subject.fake.createRepository(MARKED_FILES);
    });
    after(() => subject.fake.stop());

    it('writes the same bytes as a promotion to the revision, on its own branch, in its own pull request', async () => {
      const { fake } = subject;
      const promotion = await subject.promote('6.9.0');
      const url = await subject.rollBack('6.9.1', '6.9.0', FAILED);
      assert.notEqual(url, promotion);

      const branch = fake.files(ROLLBACK_BRANCH);
      assert.deepEqual(branch, fake.files(BRANCH), 'the bytes a promotion to 6.9.0 wrote');
      for (const [path, text] of Object.entries(MARKED_FILES)) {
        const expected = path.endsWith('.md') ? text : setMarkedValues(text, 'foo:bar:prod', '6.9.0').text;
        assert.equal(branch[path], expected, path);
      }
      assert.deepEqual(fake.files('main'), MARKED_FILES, 'nothing merged');
      assert.equal(fake.commitsAhead(ROLLBACK_BRANCH), type === 'bitbucket-server' ? 4 : 1);

      const pulls = fake.pullRequests();
      assert.equal(pulls.length, 2);
      const rollback = pulls.find((pull) => pull.source === ROLLBACK_BRANCH) ?? assert.fail('no rollback PR');
      assert.deepEqual(
        { ...rollback, url: undefined },
        {
          title: ROLLBACK_TITLE,
          body: [
            'Rolls back **prod** of the pipeline foo/bar from **6.9.1** to **6.9.0**, the last revision that was ' +
              'healthy there: the targets of prod failed on 6.9.1.',
            '',
            'Opened by pipeline-controller and never merged automatically: merge it to roll back, or close it to ' +
              'leave prod on 6.9.1.',
            '',
            '### Evidence',
            '',
            'The targets of **prod** as last observed:',
            '',
            '| target | revision | phase | healthy since (UTC) |',
            '| --- | --- | --- | --- |',
            '| prod/prod/podinfo | 6.9.1 | Failed | - |',
          ].join('\n'),
          state: 'open',
          source: ROLLBACK_BRANCH,
          target: 'main',
          url: undefined,
        },
      );
      assert.equal(rollback.url, url);
      assert.ok(!rollback.body.includes('foo/bar/prod'), "Weave's lookup never takes it for the promotion");
      const promoted = pulls.find((pull) => pull.source === BRANCH);
      assert.equal(promoted?.title, 'Promote foo/bar in prod to 6.9.0', 'the promotion pull request is untouched');
    });

    it('is idempotent: a second call gives the same pull request and writes nothing', async () => {
      const { fake } = subject;
      const head = fake.branchHead(ROLLBACK_BRANCH);
      const first = fake.pullRequests().find((pull) => pull.source === ROLLBACK_BRANCH)?.url;
      assert.equal(await subject.rollBack('6.9.1', '6.9.0', FAILED), first);
      assert.equal(fake.branchHead(ROLLBACK_BRANCH), head, 'no new commit');
      assert.equal(fake.pullRequests().length, 2, 'no second pull request');
    });

    it('gives the merged pull request once a person merged it', async () => {
      const { fake } = subject;
      const url = fake.pullRequests().find((pull) => pull.source === ROLLBACK_BRANCH)?.url ?? assert.fail('no PR');
      fake.merge(url);
      assert.match(fake.files('main')['apps/prod/helmrelease.yaml'] ?? '', /version: "6.9.0"/);
      assert.equal(await subject.rollBack('6.9.1', '6.9.0', FAILED), url);
      assert.equal(fake.pullRequests().length, 2);
    });
  });
}
