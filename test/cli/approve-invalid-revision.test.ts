// `pipelinectl approve` on a revision that is not a version of what the pipeline promotes: an approval request a
// version before revisions were checked recorded for a leaf cluster's empty chart version, or a revision a person
// typed. The approval is refused with exit 1 before anything is recorded, so nothing is promoted either.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, PIPELINE, pipeline, SECRETS } from './fixtures.js';
import { runCli } from '../support/pipelinectl.js';

describe('pipelinectl approve of a revision that is not a version', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  /** The store as the command left it: staging's marker and the audit entries of the pipeline. */
  async function recorded() {
    const backend = await openLocalBackend(dataDir);
    try {
      const marker = await backend.store.getApproval(PIPELINE, 'staging');
      const audit = (await backend.store.listAudit(PIPELINE)).items.map((entry) => entry.type);
      return { marker, audit };
    } finally {
      await backend.close();
    }
  }

  async function waiting(revision: string) {
    const backend = await openLocalBackend(dataDir);
    try {
      await backend.store.requestApproval(PIPELINE, 'staging', revision, new Date());
    } finally {
      await backend.close();
    }
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-approve-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': pipeline('apps'),
    });
    const backend = await openLocalBackend(dataDir);
    try {
      assert.ok((await applyConfiguration(backend, { source: { paths: [join(root, 'config')] } })).ok);
    } finally {
      await backend.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('an empty revision waiting in staging: refused, exit 1, no approval recorded', async () => {
    await waiting('');
    const run = await cli('approve', 'flux-system/podinfo', 'staging');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.equal(
      run.stderr,
      'error: cannot approve in flux-system/podinfo staging: "" is not a Helm chart version (SemVer 2)\n',
    );
    const { marker, audit } = await recorded();
    assert.equal(marker?.revision, '');
    assert.equal(marker?.approvedBy, undefined, 'not approved');
    assert.deepEqual(marker?.approvals ?? [], []);
    assert.ok(!audit.includes('approved'), audit.join(', '));
  });

  it('a range named with --revision, and waiting: refused the same way, the value escaped', async () => {
    await waiting('>=0.0.0\nx');
    const run = await cli('approve', 'flux-system/podinfo', 'staging', '--revision', '>=0.0.0\nx');
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'error: cannot approve in flux-system/podinfo staging: ">=0.0.0\\u{a}x" is not a Helm chart version (SemVer 2)\n',
    );
    const { marker, audit } = await recorded();
    assert.equal(marker?.approvedBy, undefined, 'not approved');
    assert.ok(!audit.includes('approved'), audit.join(', '));
  });

  it('a chart version waiting in staging is approved as before', async () => {
    await waiting('6.9.2');
    const run = await cli('approve', 'flux-system/podinfo', 'staging');
    assert.equal(run.code, 0, run.stderr);
    assert.equal((await recorded()).marker?.revision, '6.9.2');
    assert.ok((await recorded()).marker?.approvedBy);
  });
});
