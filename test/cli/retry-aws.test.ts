// `pipelinectl retry` on a deployed stack, in this process: the CLI's AWS backend against dynalite (DynamoDB),
// fauxqs (SQS) and test/support/aws-stand-in.ts (STS). The retry is recorded under the caller's ARN and the verifier
// is handed a check-pipeline message through SQS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { retryPromotion } from '../../lib/cli/operations/retry.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { decodeMessage } from '../../lib/queue/messages.js';
import { PIPELINE, pipelineDocument } from '../loop/harness.js';
import { useDeployedStack } from '../support/deployed-stack.js';
import { healthy, app } from './fixtures.js';

describe('pipelinectl retry --aws', () => {
  const stack = useDeployedStack();

  it('records the retry under the caller ARN from STS and sends a check-pipeline message to SQS', async () => {
    // What a verifier leaves: dev on 6.9.2, prod on 6.9.1, the promotion of 6.9.2 to prod failed for good.
    const store = stack().store;
    const now = new Date();
    await store.applyPipeline(pipelineDocument, resolvePipeline(pipelineDocument), now);
    await store.recordTargetStatus(app('dev', 'apps'), healthy('6.9.2'), now);
    await store.recordTargetStatus(app('prod', 'apps'), healthy('6.9.1'), now);
    await store.recordTargetStatus(app('prod', 'apps-eu'), healthy('6.9.1'), now);
    await store.createPromotion(PIPELINE, 'prod', '6.9.2', now);
    const claimed = await store.claimPromotion(PIPELINE, 'prod', '6.9.2', 'verifier', 60_000, now);
    assert.ok(claimed);
    assert.ok(await store.failPromotion(claimed, 'Bad credentials', undefined, now));

    const backend = await stack().open();
    try {
      const result = await retryPromotion(backend, PIPELINE, 'prod', '6.9.2');
      const arn = 'arn:aws:iam::123456789012:user/alice';
      assert.deepEqual(result, { revision: '6.9.2', attempt: 2, by: arn, at: result.at, delivered: true });

      const record = await store.getPromotion(PIPELINE, 'prod', '6.9.2');
      assert.equal(record?.state, 'failed');
      assert.ok(record.retryAt !== undefined && Date.parse(record.retryAt) <= Date.now(), 'due now');
      assert.equal(record.error, 'Bad credentials', 'the failure is kept for status and explain');
      const [entry] = (await store.listAudit(PIPELINE)).items;
      assert.equal(entry?.type, 'promotion-retry-requested');
      assert.equal(entry.actor, arn);
      assert.equal(entry.at, result.at, 'the retry is reported at the time it was audited');

      const { Messages = [] } = await stack().sqs.send(
        new ReceiveMessageCommand({ QueueUrl: stack().queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      assert.deepEqual(
        Messages.map((message) => decodeMessage(message.Body ?? '')),
        [
          {
            ok: true,
            message: { type: 'check-pipeline', pipeline: PIPELINE, env: 'prod', cause: 'retry', readTargets: false },
          },
        ],
      );
    } finally {
      await backend.close();
    }
  });
});
