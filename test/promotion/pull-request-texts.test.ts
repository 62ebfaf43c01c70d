// The texts of a pull request, without a host: the evidence section (escaping, the cut to a host's length), the
// promotion and rollback bodies, the rollback branch and title, and the rollback record's key
// (lib/promotion/pull-request/evidence-markdown.ts, body.ts, naming.ts; lib/decision/rollback-record.ts). What every
// host's fake receives: pull-request-bodies.test.ts.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import type { PromotionEvidence as DecisionEvidence } from '../../lib/decision/types.js';
import { rollbackRecordEnv, rolledBackEnv } from '../../lib/decision/index.js';
import type { PromotionEvidence } from '../../lib/promotion/index.js';
import {
  branchSafe,
  evidenceSection,
  markdownText,
  promotionPullRequestBody,
  pullRequestBody,
  rollbackBranch,
  rollbackPullRequestBody,
  rollbackTitle,
} from '../../lib/promotion/pull-request/index.js';

// The decision's evidence is what the verifier hands the Promoter: the two declarations must stay one shape. This
// fails to compile when either gains, loses or changes a field.
const fromDecision = (evidence: DecisionEvidence): PromotionEvidence => evidence;
const toDecision = (evidence: PromotionEvidence): DecisionEvidence => evidence;
void fromDecision;
void toDecision;

const WEAVE = pullRequestBody('flux-system', 'podinfo', 'prod');
const TABLE_HEAD = '| target | revision | phase | healthy since (UTC) |\n| --- | --- | --- | --- |';

describe('the evidence section', () => {
  it("comes after Weave's block, which it leaves as it is", () => {
    const body = promotionPullRequestBody('flux-system', 'podinfo', 'prod', {
      from: 'staging',
      targets: [
        { name: 'staging/apps/podinfo', revision: '6.5.1', phase: 'Ready', healthySince: '2026-11-01T09:30:00Z' },
      ],
    });
    assert.equal(
      body,
      `${WEAVE}\n\n### Evidence\n\nPromoted from **staging**.\n\n${TABLE_HEAD}\n` +
        '| staging/apps/podinfo | 6.5.1 | Ready | 2026-11-01 09:30:00 |',
    );
  });

  it("is absent without evidence: the body is Weave's, byte for byte", () => {
    assert.equal(promotionPullRequestBody('flux-system', 'podinfo', 'prod', undefined), WEAVE);
    assert.equal(
      WEAVE,
      '<details>\n<summary>metadata</summary>\n!!! DO NOT EDIT !!!\n\nflux-system/podinfo/prod\n</details>',
    );
  });

  it('names a source object and has no table when there are no targets', () => {
    const section = evidenceSection(
      { from: 'ImagePolicy apps/podinfo on flux-system/build', targets: [] },
      'Promoted from **ImagePolicy apps/podinfo on flux-system/build**.',
      10_000,
    );
    assert.equal(section, '### Evidence\n\nPromoted from **ImagePolicy apps/podinfo on flux-system/build**.');
  });

  it('shows what it does not know as "-", and a time it cannot read as it is', () => {
    const section = evidenceSection(
      { from: 'dev', targets: [{ name: 'dev/apps/podinfo', phase: 'Absent', healthySince: 'yesterday' }] },
      'lead',
      10_000,
    );
    assert.equal(section?.split('\n').at(-1), '| dev/apps/podinfo | - | Absent | yesterday |');
  });

  it('keeps every value from outside inside its cell, on its row, and never HTML', () => {
    const section = evidenceSection(
      {
        from: 'dev',
        targets: [
          { name: 'a|b', revision: '1.0\n| x | y |', phase: '<script>alert(1)</script>', healthySince: 'now\r' },
        ],
      },
      'lead',
      10_000,
    );
    const row = section?.split('\n').at(-1) ?? '';
    assert.equal(row, '| a\\|b | 1.0<br>\\| x \\| y \\| | &lt;script&gt;alert(1)&lt;/script&gt; | now<br> |');
    assert.equal(row.split(/(?<!\\)\|/).length - 2, 4, 'four cells');
  });

  it('escapes the lead sentence too', () => {
    const body = promotionPullRequestBody('ns', 'name', 'prod', {
      from: 'dev **bold** <b>',
      targets: [],
      soak: '30m\n# heading',
    });
    assert.ok(body.endsWith('Promoted from **dev \\*\\*bold\\*\\* &lt;b&gt;**, soak 30m<br>\\# heading served.'), body);
  });

  it("lists the environment's verification checks with the value each saw, escaped, after its targets", () => {
    const evidence: PromotionEvidence = {
      from: 'staging',
      targets: ['one', 'two'].map((name) => ({ name, revision: '1.0.0', phase: 'Ready' })),
      checks: [
        {
          name: 'errors',
          kind: 'cloudwatchAlarms',
          verdict: 'passed',
          value: 'podinfo-5xx OK',
          checkedAt: '2026-11-01T10:00:00Z',
        },
        {
          name: 'rate',
          kind: 'prometheus',
          verdict: 'passed',
          value: '0.002 | <b>',
          checkedAt: '2026-11-01T10:00:00Z',
        },
      ],
    };
    const whole = evidenceSection(evidence, 'lead', 10_000) ?? assert.fail('no section');
    const lines = whole.split('\n');
    assert.equal(lines.at(-3), '| --- | --- | --- | --- | --- |');
    assert.equal(lines.at(-2), '| errors | cloudwatchAlarms | passed | podinfo-5xx OK | 2026-11-01 10:00:00 |');
    assert.equal(lines.at(-1), '| rate | prometheus | passed | 0.002 \\| &lt;b&gt; | 2026-11-01 10:00:00 |');
    const cut = evidenceSection(evidence, 'lead', whole.length - 1) ?? assert.fail('no section');
    assert.ok(cut.includes('| errors |') && cut.includes('| rate |') && !cut.includes('| two |'), 'targets go first');
  });

  it('after a fan-in, names every environment the candidate comes from, and each target and check with its own', () => {
    const evidence: PromotionEvidence = {
      from: 'prod-eu',
      soak: '1h',
      targets: [{ name: 'flux-system/eu apps', revision: '1.0.0', phase: 'Ready' }],
      also: [
        {
          from: 'prod-us',
          targets: [{ name: 'flux-system/us apps', revision: '1.0.0', phase: 'Ready' }],
          checks: [
            { name: 'rate', kind: 'prometheus', verdict: 'passed', value: '0', checkedAt: '2026-11-01T10:00:00Z' },
          ],
        },
      ],
    };
    const body = promotionPullRequestBody('flux-system', 'podinfo', 'global', evidence, 65_536);
    assert.ok(body.includes('Promoted from **prod-eu**, soak 1h served and **prod-us**.'), body);
    const lines = (evidenceSection(evidence, 'lead', 10_000) ?? assert.fail('no section')).split('\n');
    assert.ok(lines.includes('| prod-eu: flux-system/eu apps | 1.0.0 | Ready | - |'), lines.join('\n'));
    assert.ok(lines.includes('| prod-us: flux-system/us apps | 1.0.0 | Ready | - |'), lines.join('\n'));
    assert.ok(lines.includes('| prod-us: rate | prometheus | passed | 0 | 2026-11-01 10:00:00 |'), lines.join('\n'));
  });

  it('leaves rows out from the end to fit, counting them, and leaves itself out when nothing fits', () => {
    const evidence: PromotionEvidence = {
      from: 'dev',
      targets: ['one', 'two', 'three'].map((name) => ({ name, revision: '1.0.0', phase: 'Ready' })),
    };
    const whole = evidenceSection(evidence, 'lead', 10_000) ?? assert.fail('no section');
    const cut = evidenceSection(evidence, 'lead', whole.length - 1) ?? assert.fail('no section');
    assert.ok(cut.length <= whole.length - 1);
    assert.ok(cut.includes('| one |') && !cut.includes('| three |'), cut);
    assert.match(cut, /\n\n… and \d more targets?, left out for length\.$/);
    assert.equal(evidenceSection(evidence, 'lead', 10), undefined);
    assert.equal(
      promotionPullRequestBody('ns', 'name', 'prod', evidence, WEAVE.length + 5),
      pullRequestBody('ns', 'name', 'prod'),
    );
  });
});

describe('markdownText', () => {
  it('leaves ordinary revisions alone', () => {
    for (const revision of ['6.5.1', 'v1.2.3-rc.1', '6.5.0@sha256:0123abcd', 'main@sha1:5f1e2d']) {
      assert.equal(markdownText(revision), revision);
    }
  });
});

describe('a rollback pull request', () => {
  it('has a branch of its own per environment and failed revision, beside the promotion branch', () => {
    assert.equal(rollbackBranch('flux-system', 'podinfo', 'prod', '6.5.1'), 'rollback-flux-system-podinfo-prod-6.5.1');
    assert.notEqual(
      rollbackBranch('flux-system', 'podinfo', 'prod', '6.5.1'),
      rollbackBranch('flux-system', 'podinfo', 'prod', '6.5.2'),
    );
  });

  it('has a title that says what it does', () => {
    assert.equal(
      rollbackTitle('flux-system', 'podinfo', 'prod', '6.5.1', '6.5.0'),
      'Roll back prod from 6.5.1 to 6.5.0 (flux-system/podinfo)',
    );
  });

  it("says why, without Weave's block, so Weave GitOps never takes it for the environment's promotion", () => {
    const body = rollbackPullRequestBody({
      pipelineNamespace: 'flux-system',
      pipelineName: 'podinfo',
      env: 'prod',
      from: '6.5.1',
      to: '6.5.0',
    });
    assert.equal(
      body,
      'Rolls back **prod** of the pipeline flux-system/podinfo from **6.5.1** to **6.5.0**, the last revision that ' +
        'was healthy there: the targets of prod failed on 6.5.1.\n\nOpened by pipeline-controller and never merged ' +
        'automatically: merge it to roll back, or close it to leave prod on 6.5.1.',
    );
    assert.ok(!body.includes('flux-system/podinfo/prod'));
  });
});

describe('branchSafe', () => {
  // git check-ref-format, for one path component, plus what some hosts refuse: only these characters.
  const SAFE = /^(?![.-])(?!.*\.\.)(?!.*\.lock$)[A-Za-z0-9._-]+(?<![.-])$/;

  it('keeps a revision that is already safe, and marks any other with a digest of the original', () => {
    assert.equal(branchSafe('6.5.1'), '6.5.1');
    assert.equal(branchSafe('v2.0.0-rc.1'), 'v2.0.0-rc.1');
    assert.match(branchSafe('6.5.0@sha256:0123abcd'), /^6\.5\.0-sha256-0123abcd-[0-9a-f]{8}$/);
  });

  it('never gives two revisions the same branch, and always a name git and every host take', () => {
    const revisions = [
      '6.5.0+build.1',
      '6.5.0-build.1',
      '6.5.0 build 1',
      '..',
      '.hidden',
      'x.lock',
      'x.lock.lock',
      'a..b',
      '-',
      '@{1}',
      'feature/x~1^2:y?*[z]\\',
      'é',
      `${'a'.repeat(80)}@sha256:${'f'.repeat(64)}`,
      `${'a'.repeat(80)}@sha256:${'e'.repeat(64)}`,
    ];
    const safe = revisions.map(branchSafe);
    for (const [index, part] of safe.entries()) {
      assert.match(part, SAFE, `${JSON.stringify(revisions[index])} → ${part}`);
      assert.ok(part.length <= 69, part);
    }
    assert.equal(new Set(safe).size, revisions.length, safe.join(' '));
    assert.equal(branchSafe('6.5.0+build.1'), branchSafe('6.5.0+build.1'), 'deterministic');
  });
});

describe('the rollback record', () => {
  it("is keyed `rollback:{env}`, which names no environment (a name cannot hold ':')", () => {
    assert.equal(rollbackRecordEnv('prod'), 'rollback:prod');
    assert.equal(rolledBackEnv('rollback:prod'), 'prod');
    assert.equal(rolledBackEnv('prod'), undefined);
  });
});

describe('the examples of docs/evidence.md and docs/rollback.md', () => {
  /** The first ```text block of a page: the example body, as the page shows it. */
  const example = async (page: string) => {
    const markdown = await readFile(new URL(`../../docs/${page}`, import.meta.url), 'utf8');
    return /^```text\n([\s\S]*?)\n```$/m.exec(markdown)?.[1] ?? assert.fail(`no example in ${page}`);
  };

  it('are the bodies the promoter writes', async () => {
    assert.equal(
      await example('evidence.md'),
      promotionPullRequestBody('flux-system', 'podinfo', 'prod', {
        from: 'staging',
        targets: [
          { name: 'staging/apps/podinfo', revision: '6.5.1', phase: 'Ready', healthySince: '2026-11-24T09:12:40Z' },
          { name: 'staging-eu/apps/podinfo', revision: '6.5.1', phase: 'Ready', healthySince: '2026-11-24T09:14:05Z' },
        ],
        soak: '30m',
      }),
    );
    assert.equal(
      await example('rollback.md'),
      rollbackPullRequestBody({
        pipelineNamespace: 'flux-system',
        pipelineName: 'podinfo',
        env: 'prod',
        from: '6.5.1',
        to: '6.5.0',
        evidence: {
          from: 'prod',
          targets: [
            { name: 'prod/apps/podinfo', revision: '6.5.1', phase: 'Failed' },
            { name: 'prod-eu/apps/podinfo', revision: '6.5.1', phase: 'Ready', healthySince: '2026-11-24T10:02:11Z' },
          ],
        },
      }),
    );
  });
});
