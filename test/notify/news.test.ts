// Which effects of the verifier are news for a person, and what each says: one row per effect type and case.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { approveCommand, configSyncNewsOf, newsOf, type News } from '../../lib/notify/index.js';
import { AUDIT_ENTRY_TYPES } from '../../lib/store/port.js';
import { BAD_COMMIT, CONFIG_SOURCE_KEY, configSyncFailure, effect, PIPELINE_KEY } from './support.js';

const AT = '2026-11-01T10:00:00.000Z';
const base = { pipeline: PIPELINE_KEY, at: AT };

describe('newsOf', () => {
  const rows: [string, Parameters<typeof effect>[0], News | undefined][] = [
    [
      'an approval requested → approval-waiting, with the exact approve command',
      { type: 'approval-requested', env: 'prod' },
      {
        kind: 'approval-waiting',
        ...base,
        env: 'prod',
        revision: '6.9.2',
        reason: '6.9.2 waits for approval to be promoted to prod',
        approveCommand: 'pipelinectl approve flux-system/podinfo prod --revision 6.9.2',
      },
    ],
    [
      'a promotion that opened a pull request → promotion-opened, with its link',
      { type: 'promotion-succeeded', env: 'staging', result: 'https://github.com/acme/fleet/pull/42' },
      {
        kind: 'promotion-opened',
        ...base,
        env: 'staging',
        revision: '6.9.2',
        reason: 'the promotion of 6.9.2 to staging is open for review',
        link: 'https://github.com/acme/fleet/pull/42',
      },
    ],
    [
      'a promotion without a result (the notification strategy) → promotion-opened, without a link',
      { type: 'promotion-succeeded', env: 'staging' },
      {
        kind: 'promotion-opened',
        ...base,
        env: 'staging',
        revision: '6.9.2',
        reason: 'the promotion of 6.9.2 to staging was handed over',
      },
    ],
    [
      'a promotion failed for good → promotion-failed, with the error',
      { type: 'promotion-failed', env: 'prod', error: 'no $promotion marker for prod' },
      {
        kind: 'promotion-failed',
        ...base,
        env: 'prod',
        revision: '6.9.2',
        reason: 'the promotion of 6.9.2 to prod failed and is not retried: no $promotion marker for prod',
      },
    ],
    [
      'a promotion failed for good, with why → promotion-failed, naming its failure kind',
      { type: 'promotion-failed', env: 'prod', error: 'no $promotion marker for prod', failureKind: 'NoMarkers' },
      {
        kind: 'promotion-failed',
        ...base,
        env: 'prod',
        revision: '6.9.2',
        reason: 'the promotion of 6.9.2 to prod failed and is not retried: no $promotion marker for prod',
        failureKind: 'NoMarkers',
      },
    ],
    [
      'a promotion failure that is retried → nothing yet',
      { type: 'promotion-failed', env: 'prod', error: 'GitHub answered 502', retryAt: '2026-11-01T10:05:00.000Z' },
      undefined,
    ],
    [
      'an environment that regressed → environment-regressed, with the verifier’s line',
      { type: 'environment-regressed', env: 'prod', message: 'a target of prod failed on 6.9.2' },
      {
        kind: 'environment-regressed',
        ...base,
        env: 'prod',
        revision: '6.9.2',
        reason: 'a target of prod failed on 6.9.2',
      },
    ],
    [
      'a regression whose failed targets disagree → environment-regressed without a revision',
      { type: 'environment-regressed', env: 'prod', revision: undefined, message: 'a target of prod failed' },
      { kind: 'environment-regressed', ...base, env: 'prod', reason: 'a target of prod failed' },
    ],
    [
      'a rollback pull request opened → rollback-opened, with its link',
      {
        type: 'rollback-succeeded',
        env: 'prod',
        message: 'rolled back to 6.9.1',
        result: 'https://github.com/acme/fleet/pull/43',
      },
      {
        kind: 'rollback-opened',
        ...base,
        env: 'prod',
        revision: '6.9.2',
        reason: 'prod fails on 6.9.2: rolled back to 6.9.1; review and merge to roll back',
        link: 'https://github.com/acme/fleet/pull/43',
      },
    ],
    [
      'a rollback failed for good → promotion-failed, naming the rollback',
      { type: 'rollback-failed', env: 'prod', error: 'no $promotion marker for prod' },
      {
        kind: 'promotion-failed',
        ...base,
        env: 'prod',
        revision: '6.9.2',
        reason: 'the rollback of prod from 6.9.2 failed and is not retried: no $promotion marker for prod',
      },
    ],
    [
      'a rollback failure that is retried → nothing yet',
      { type: 'rollback-failed', env: 'prod', error: 'GitHub answered 502', retryAt: '2026-11-01T10:05:00.000Z' },
      undefined,
    ],
    ['a rollback started → nothing', { type: 'rollback-started', env: 'prod' }, undefined],
    ['a revision rejected → nothing (the person who rejected it knows)', { type: 'rejected', env: 'prod' }, undefined],
    ['a stop switch set → nothing', { type: 'freeze-set', env: 'prod' }, undefined],
    ['a stop switch lifted → nothing', { type: 'freeze-cleared', env: 'prod' }, undefined],
    ['a promotion started → nothing', { type: 'promotion-started', env: 'prod' }, undefined],
    ['an approval cleared → nothing', { type: 'approval-cleared', env: 'prod' }, undefined],
    ['an environment passed → nothing', { type: 'environment-passed', env: 'prod' }, undefined],
    [
      'a verification failed → verification-failed, with the check and its value',
      {
        type: 'verification-failed',
        env: 'staging',
        message: 'verification of 6.9.2 failed: check error-rate: 0.05 (below 0.01 required)',
      },
      {
        kind: 'verification-failed',
        ...base,
        env: 'staging',
        revision: '6.9.2',
        reason: 'verification of 6.9.2 failed: check error-rate: 0.05 (below 0.01 required)',
      },
    ],
    ['a verification passed → nothing', { type: 'verification-passed', env: 'staging' }, undefined],
    ['an approval given → nothing', { type: 'approved', env: 'prod' }, undefined],
  ];
  for (const [name, fields, expected] of rows) {
    it(name, () => assert.deepEqual(newsOf(effect(fields)), expected));
  }

  it('knows every audit entry type (a new one is a decision to make here)', () => {
    const covered = new Set(rows.map(([, fields]) => fields.type));
    const uncovered = AUDIT_ENTRY_TYPES.filter((type) => !covered.has(type));
    assert.deepEqual(uncovered, ['promotion-interrupted', 'promotion-retry-requested']);
    for (const type of uncovered) assert.equal(newsOf(effect({ type, env: 'prod' })), undefined);
  });

  it('keeps the reason to one line of at most 500 characters', () => {
    const error = `GitHub said:\n${'x'.repeat(1000)}\r\nend`;
    const news = newsOf(effect({ type: 'promotion-failed', env: 'prod', error }));
    assert.ok(news);
    assert.doesNotMatch(news.reason, /[\r\n]/);
    assert.equal(news.reason.length, 500);
    assert.ok(news.reason.endsWith('…'));
  });

  it('puts where pipelinectl acts after the approve command', () => {
    const news = newsOf(effect({ type: 'approval-requested', env: 'prod' }), {
      approveFlags: ['--aws', '--stack', 'PipelineControllerStack'],
    });
    assert.equal(
      news?.approveCommand,
      'pipelinectl approve flux-system/podinfo prod --revision 6.9.2 --aws --stack PipelineControllerStack',
    );
  });
});

describe('configSyncNewsOf', () => {
  const at = new Date(AT);

  it('names the source, the commit, the sync’s reason and the problems, the commit said once', () => {
    assert.deepEqual(configSyncNewsOf(configSyncFailure(), at), {
      kind: 'config-sync-failed',
      configSource: CONFIG_SOURCE_KEY,
      revision: BAD_COMMIT,
      syncReason: 'ValidationFailed',
      reason:
        '1 problem: pipelines/podinfo.yaml:8:7: Pipeline flux-system/podinfo: spec.environments[0].targetz: unknown field "targetz"',
      at: AT,
    });
  });

  it('keeps the problems to one line of at most 500 characters', () => {
    const message = `${BAD_COMMIT}: 300 problems: ${'pipelines/a.yaml:1:1: bad;\n'.repeat(300)}`;
    const news = configSyncNewsOf(configSyncFailure({ message }), at);
    assert.ok(news);
    assert.doesNotMatch(news.reason, /[\r\n]/);
    assert.equal(news.reason.length, 500);
    assert.ok(news.reason.startsWith('300 problems: pipelines/a.yaml:1:1: bad;'));
    assert.ok(news.reason.endsWith('…'));
  });

  it('is nothing for a failure of no commit: there is no commit to tell of once', () => {
    assert.equal(configSyncNewsOf(configSyncFailure({ revision: undefined, reason: 'GitUnavailable' }), at), undefined);
  });
});

describe('approveCommand', () => {
  it('leaves the usual revisions as they are', () => {
    for (const revision of ['6.9.2', 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1', '6.6.1+0cc9a8446c95']) {
      assert.equal(
        approveCommand(PIPELINE_KEY, 'prod', revision),
        `pipelinectl approve flux-system/podinfo prod --revision ${revision}`,
      );
    }
  });

  it('quotes what a shell would read otherwise, so the pasted command passes exactly the revision', () => {
    const revision = "v1 $(touch x) 'quoted' #1";
    const env = 'prod#eu';
    const command = approveCommand(PIPELINE_KEY, env, revision);
    // The shell splits the command into exactly the words pipelinectl needs.
    const words = execFileSync('sh', ['-c', `printf '%s\\n' ${command.replace(/^pipelinectl /, '')}`], {
      encoding: 'utf8',
    });
    assert.deepEqual(words.trimEnd().split('\n'), ['approve', 'flux-system/podinfo', env, '--revision', revision]);
  });
});
