// `pipelinectl history --aws` in this process: the CLI's AWS backend against dynalite (DynamoDB), fauxqs (SQS) and
// test/support/aws-stand-in.ts (STS), reading the table a deployed stack writes. Two approvals reach it through both
// doors: `pipelinectl approve` (under the caller's ARN) and Weave's `/approval` webhook handled by the receiver on
// the same table (under the name of the key that signed it). History shows both, each with its approver.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyJson, readHistory } from '../../lib/cli/operations/history.js';
import { approveRevision } from '../../lib/cli/operations/approve.js';
import { handleRequest } from '../../lib/http/receiver.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { signatureHeader } from '../../lib/signing/hmac.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { PIPELINE, pipelineDocument, WEBHOOK_HMAC_KEY } from '../loop/harness.js';
import { useDeployedStack } from '../support/deployed-stack.js';
import { silentLogger } from '../../lib/logging/logger.js';

const ARN = 'arn:aws:iam::123456789012:user/alice';
const WEBHOOK_IDENTITY = 'hmac-key of Secret flux-system/webhook-hmac';

describe('pipelinectl history --aws', () => {
  const stack = useDeployedStack();

  it("reads the stack's table: a CLI approval under the caller's ARN, a webhook one under its key", async () => {
    // What the verifier leaves: prod waits for 6.9.2. The pipeline is manual here so that prod waits.
    const store = stack().store;
    const manual = { ...pipelineDocument, spec: { ...pipelineDocument.spec } };
    manual.spec.promotion = { ...pipelineDocument.spec.promotion, manual: true } as typeof manual.spec.promotion;
    const earlier = new Date(Date.now() - 60_000);
    await store.applyPipeline(manual, resolvePipeline(manual), earlier);
    assert.equal(await store.requestApproval(PIPELINE, 'prod', '6.9.2', earlier), 'requested');

    // The webhook door: Weave's POST /approval, signed over the empty body, handled by the receiver on the table.
    const secrets = new StaticSecretSource();
    secrets.set({ namespace: 'flux-system', name: 'webhook-hmac' }, { 'hmac-key': WEBHOOK_HMAC_KEY });
    const receiver = {
      store,
      queue: new RecordingQueue(),
      secrets,
      masterKeys: () => Promise.reject(new Error('an approval needs no master key')),
      logger: silentLogger,
    };
    const approval = (revision: string, key: string) =>
      handleRequest(
        {
          method: 'POST',
          path: `/approval/flux-system/podinfo/prod/${revision}`,
          headers: { 'x-signature': signatureHeader('', key) },
          body: Buffer.alloc(0),
        },
        receiver,
      );
    assert.equal((await approval('6.9.2', 'forged-key')).statusCode, 401, 'a forged approval is refused');
    assert.equal((await approval('6.9.2', WEBHOOK_HMAC_KEY)).statusCode, 202);

    // The CLI door, after the verifier asked again for a newer revision.
    assert.equal(await store.requestApproval(PIPELINE, 'prod', '6.9.3', new Date()), 'requested');
    const backend = await stack().open();
    try {
      const approved = await approveRevision(backend, PIPELINE, 'prod', undefined);
      assert.equal(approved.by, ARN);

      const history = historyJson(await readHistory(backend, { pipeline: PIPELINE, type: 'approved', limit: 100 }));
      assert.deepEqual(
        history.entries.map(({ pipeline, env, type, revision, actor }) => ({ pipeline, env, type, revision, actor })),
        [
          { pipeline: 'flux-system/podinfo', env: 'prod', type: 'approved', revision: '6.9.3', actor: ARN },
          {
            pipeline: 'flux-system/podinfo',
            env: 'prod',
            type: 'approved',
            revision: '6.9.2',
            actor: WEBHOOK_IDENTITY,
          },
        ],
        'one entry per approval that took effect, none for the forged one, each with who approved',
      );
      assert.equal(history.entries[1]?.message, '6.9.2 approved for prod with the approval webhook');
      assert.equal(history.more, false);

      const all = await readHistory(backend, { limit: 1 });
      assert.deepEqual(
        all.entries.map((entry) => entry.revision),
        ['6.9.3'],
      );
      assert.equal(all.more, true, 'the limit cut the trail');
    } finally {
      await backend.close();
    }
  });
});
