// The local mode's owner is one approver whatever the door: `pipelinectl approve` (as `local:<user>`) and Weave's
// `/approval` webhook signed with the key in the owner's data directory count once toward `required: 2`. Run as a
// user runs it: `pipelinectl serve` and `pipelinectl approve` as child processes, the webhook over HTTP, a leaf
// cluster that is a fake Kubernetes API.
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { signatureHeader } from '../../lib/signing/hmac.js';
import { clusterWithKubeconfigYaml, pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployed } from '../loop/harness.js';
import { tempFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const OWNER = userInfo().username;
const OTHER = OWNER === 'alice' ? 'bob' : 'alice';
const HMAC_KEY = 'the-owners-webhook-key';

describe('the local owner approving through two doors', () => {
  it('pipelinectl approve, then the webhook with the owner’s key: one approval of two, prod still waits', async (t) => {
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    kube.put(deployed('6.9.2', 'dev'));
    kube.put(deployed('6.9.1', 'prod'));
    const approval = `{required: 2, approvers: {keys: [webhook-hmac], users: [${OWNER}, ${OTHER}]}}`;
    const root = await tempFiles(t, {
      'config/fleet.yaml': yamlDocuments(
        clusterWithKubeconfigYaml('fleet', kube.kubeconfig()),
        secretYaml('webhook-hmac', { 'hmac-key': HMAC_KEY }),
        pipelineYaml({
          name: 'podinfo',
          environments: [
            { name: 'dev', targets: [{ namespace: 'dev', cluster: 'fleet' }] },
            { name: 'prod', targets: [{ namespace: 'prod', cluster: 'fleet' }], manual: true, approval },
          ],
          strategy: 'notification',
          hmacSecret: 'webhook-hmac',
        }),
      ),
    });
    const dataDir = join(root, 'data');
    const serve = await startServe(t, ['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0']);
    const backend = await openLocalBackend(dataDir);
    t.after(() => backend.close());
    await waitFor('prod asking for approval of 6.9.2', async () => {
      return (await backend.store.getApproval(PIPELINE, 'prod'))?.revision === '6.9.2';
    });

    const cli = await runPipelinectl(['approve', 'flux-system/podinfo', 'prod', '--data-dir', dataDir]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(
      cli.stdout,
      `approved flux-system/podinfo prod 6.9.2 as local:${OWNER}: 1 of 2 approvals, 1 more needed before the ` +
        'promotion starts\n',
    );

    // Weave signs the empty string; the key is the one in the owner's configuration.
    const webhook = await fetch(`${serve.receiverUrl}/approval/flux-system/podinfo/prod/6.9.2`, {
      method: 'POST',
      headers: { 'x-signature': signatureHeader('', HMAC_KEY) },
    });
    assert.equal(webhook.status, 202);
    assert.deepEqual(await webhook.json(), {
      status: 'already-counted',
      approvals: '1',
      required: '2',
      message: '1 more approval needed before the promotion starts',
    });

    const marker = await backend.store.getApproval(PIPELINE, 'prod');
    assert.equal(marker?.approvedAt, undefined, 'prod still waits for a second person');
    assert.deepEqual(
      marker?.approvals?.map((approval) => approval.by),
      [`local:${OWNER}`],
    );
    const approved = (await backend.store.listAudit(PIPELINE)).items.filter((entry) => entry.type === 'approved');
    assert.deepEqual(
      approved.map((entry) => entry.actor),
      [`local:${OWNER}`],
      'one approval in the audit trail',
    );
  });
});
