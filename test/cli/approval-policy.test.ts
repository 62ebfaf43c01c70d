// pipelinectl approve and reject under an environment's approval policy (docs/approval-policies.md), run as a user
// runs them: child processes on a local data directory whose manual `staging` waits for 6.9.2. The CLI's identity is
// the operating system's user (`local:<user>`); a second person's approval goes through the same action in this
// process, under another local identity, with the data directory opened here and closed before the next run.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { approveRevision, type ApproveJson } from '../../lib/cli/operations/approve.js';
import type { RejectJson } from '../../lib/cli/operations/reject.js';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { writeFiles } from '../support/temp-files.js';
import { LOCAL_IDENTITY as IDENTITY, OTHER_USER as OTHER, pipelineWithStagingApproval } from './approval-fixtures.js';
import { CLUSTERS, PIPELINE, SECRETS, seed } from './fixtures.js';
import { runCli } from '../support/pipelinectl.js';

const ME = IDENTITY.slice('local:'.length);

describe('pipelinectl approve and reject under an approval policy', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
  /** Runs `act` on the data directory opened in this process, closed again before the next CLI run. */
  const onBackend = async <T>(act: (backend: Backend) => Promise<T>): Promise<T> => {
    const backend = await openLocalBackend(dataDir);
    try {
      return await act(backend);
    } finally {
      await backend.close();
    }
  };
  const apply = (approval: string) =>
    onBackend(async (backend) => {
      await writeFiles(root, { 'config/pipeline.yaml': pipelineWithStagingApproval(approval) });
      const applied = await applyConfiguration(backend, { source: { paths: [join(root, 'config')] } });
      assert.ok(applied.ok, JSON.stringify(applied));
    });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-approval-policy-'));
    dataDir = join(root, 'data');
    await writeFiles(root, { 'config/clusters.yaml': CLUSTERS, 'config/secrets.yaml': SECRETS });
    await apply(`{ required: 2, approvers: { users: [${OTHER}, ${ME}] } }`);
    await onBackend((backend) => seed(backend.store));
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('two local users: the second approval completes the policy; one person twice counts once', async () => {
    // The other person approves first: counted, the promotion waits.
    const first = await onBackend((backend) =>
      approveRevision({ ...backend, identity: () => Promise.resolve(`local:${OTHER}`) }, PIPELINE, 'staging', '6.9.2'),
    );
    assert.equal(first.outcome, 'counted');
    assert.deepEqual([first.have, first.need], [1, 2]);
    // Still a person's turn: explain's Next says so, with the count and the commands.
    const explain = await cli('explain', 'flux-system/podinfo', 'staging');
    assert.equal(explain.code, 0, explain.stderr);
    assert.deepEqual(explain.stdout.trimEnd().split('\n').slice(-3), [
      'Next: staging waits for a person to approve 6.9.2 (1 of 2 approvals so far), or to reject it.',
      `  pipelinectl approve flux-system/podinfo staging --revision 6.9.2 --data-dir ${dataDir}`,
      `  pipelinectl reject flux-system/podinfo staging --revision 6.9.2 --reason '…' --data-dir ${dataDir}`,
    ]);

    const run = await cli('approve', 'flux-system/podinfo', 'staging');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `approved flux-system/podinfo staging 6.9.2 as ${IDENTITY} (2 of 2 approvals)\n`);
    assert.match(
      run.stderr,
      /^note: pipelinectl serve is not running/,
      'the completing approval hands the promotion on',
    );

    const again = await cli('approve', 'flux-system/podinfo', 'staging', '-o', 'json');
    assert.equal(again.code, 0, again.stderr);
    const json = JSON.parse(again.stdout) as ApproveJson;
    assert.deepEqual(
      { ...json, approvedAt: null },
      {
        pipeline: 'flux-system/podinfo',
        env: 'staging',
        revision: '6.9.2',
        outcome: 'already-approved',
        approvedBy: IDENTITY,
        approvedAt: null,
        have: 2,
        need: 2,
        delivered: false,
      },
    );

    await onBackend(async (backend) => {
      const marker = await backend.store.getApproval(PIPELINE, 'staging');
      assert.deepEqual(
        marker?.approvals?.map((approval) => approval.by),
        [`local:${OTHER}`, IDENTITY],
      );
      const audit = (await backend.store.listAudit(PIPELINE)).items.filter((entry) => entry.type === 'approved');
      assert.deepEqual(
        audit.map(({ actor, message }) => ({ actor, message })),
        [
          { actor: IDENTITY, message: '6.9.2 approved for staging with pipelinectl (2 of 2)' },
          { actor: `local:${OTHER}`, message: '6.9.2 approved for staging with pipelinectl (1 of 2)' },
        ],
      );
      // The verifier asks again for a newer candidate.
      assert.equal(await backend.store.requestApproval(PIPELINE, 'staging', '6.9.3', new Date()), 'requested');
    });
  });

  it('a counted approval says how many more are needed and hands nothing on; repeating it is harmless', async () => {
    const run = await cli('approve', 'flux-system/podinfo', 'staging', '--revision', '6.9.3', '-o', 'json');
    assert.equal(run.code, 0, run.stderr);
    const json = JSON.parse(run.stdout) as ApproveJson;
    assert.equal(json.outcome, 'counted');
    assert.equal(json.approvedBy, IDENTITY);
    assert.deepEqual([json.have, json.need, json.delivered], [1, 2, false]);
    assert.equal(run.stderr, '', 'no promotion to be handed on, so no note about serve');

    const again = await cli('approve', 'flux-system/podinfo', 'staging');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(
      again.stdout,
      `already approved flux-system/podinfo staging 6.9.3 as ${IDENTITY} (an approver counts once): ` +
        '1 of 2 approvals, 1 more needed before the promotion starts\n',
    );
  });

  it('reject: recorded with who and why; approvals are then refused; rejecting again is harmless', async () => {
    const missing = await cli('reject', 'flux-system/podinfo', 'staging');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /required option '--reason <text>' not specified/);

    const rejected = await cli('reject', 'flux-system/podinfo', 'staging', '--reason', 'breaks checkout (INC-7)');
    assert.equal(rejected.code, 0, rejected.stderr);
    assert.equal(
      rejected.stdout,
      `rejected flux-system/podinfo staging 6.9.3 as ${IDENTITY}: breaks checkout (INC-7)\n`,
    );

    const refused = await cli('approve', 'flux-system/podinfo', 'staging', '--revision', '6.9.3');
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.equal(
      refused.stderr,
      `error: 6.9.3 was rejected for flux-system/podinfo staging by ${IDENTITY} (breaks checkout (INC-7)): it is ` +
        'not promoted there; a newer revision asks for approval again\n',
    );

    const again = await cli('reject', 'flux-system/podinfo', 'staging', '--reason', 'still broken', '-o', 'json');
    assert.equal(again.code, 0, again.stderr);
    const json = JSON.parse(again.stdout) as RejectJson;
    assert.deepEqual(
      { ...json, rejectedAt: null },
      {
        pipeline: 'flux-system/podinfo',
        env: 'staging',
        revision: '6.9.3',
        outcome: 'already-rejected',
        rejectedBy: IDENTITY,
        rejectedAt: null,
        reason: 'breaks checkout (INC-7)',
      },
    );

    await onBackend(async (backend) => {
      const marker = await backend.store.getApproval(PIPELINE, 'staging');
      assert.deepEqual([marker?.rejectedBy, marker?.rejectionReason], [IDENTITY, 'breaks checkout (INC-7)']);
      assert.equal(marker?.approvedAt, undefined);
      const [newest] = (await backend.store.listAudit(PIPELINE)).items;
      assert.deepEqual(
        { type: newest?.type, actor: newest?.actor, message: newest?.message },
        {
          type: 'rejected',
          actor: IDENTITY,
          message: '6.9.3 rejected for staging with pipelinectl: breaks checkout (INC-7)',
        },
      );
      assert.equal(await backend.store.requestApproval(PIPELINE, 'staging', '6.9.4', new Date()), 'requested');
    });
  });

  it('a user the policy does not list may neither approve nor reject; the message names the user and the list', async () => {
    await apply(`{ approvers: { users: [${OTHER}] } }`);
    const approve = await cli('approve', 'flux-system/podinfo', 'staging');
    assert.equal(approve.code, 1);
    assert.equal(approve.stdout, '');
    assert.equal(
      approve.stderr,
      `error: cannot approve 6.9.4 in flux-system/podinfo staging: ${IDENTITY} may not approve: not in the ` +
        "environment's approval.approvers.users\n",
    );
    const reject = await cli('reject', 'flux-system/podinfo', 'staging', '--reason', 'no');
    assert.equal(reject.code, 1);
    assert.match(reject.stderr, new RegExp(`^error: cannot reject 6\\.9\\.4 .*: ${IDENTITY} may not approve: not in`));

    await onBackend(async (backend) => {
      const marker = await backend.store.getApproval(PIPELINE, 'staging');
      assert.deepEqual(marker && { ...marker, requestedAt: '' }, {
        env: 'staging',
        revision: '6.9.4',
        requestedAt: '',
      });
    });
  });
});
