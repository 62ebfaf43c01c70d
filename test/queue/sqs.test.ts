// The SQS adapters against fauxqs, the SQS emulator, started in this process: the shared Queue contract, then what
// is particular to SQS (failed batch entries, the dead-letter attributes, the record conversion).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Message } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import type { FauxqsServer } from 'fauxqs';
import { consumeBatch } from '../../lib/queue/consumer.js';
import {
  DEAD_LETTER_REASON_ATTRIBUTE,
  DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE,
  DEAD_LETTER_SOURCE_MESSAGE_ID_ATTRIBUTE,
  SqsBatchSendError,
  SqsDeadLetters,
  SqsQueue,
  toSqsRecord,
} from '../../lib/queue/sqs.js';
import { approximateQueueDepth } from '../support/sqs-depth.js';
import { silentLogger } from '../../lib/logging/logger.js';
import { app, queueContract } from './queue-contract.js';
import type { QueueHarness } from './queue-contract.js';

const VISIBILITY_TIMEOUT_SECONDS = 1;
const MAX_RECEIVE_COUNT = 2;

interface SqsStandIn {
  server: FauxqsServer;
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  /** SendMessageBatch requests made through `client`. */
  batchRequests: () => number;
  stop: () => Promise<void>;
}

/** A fresh fauxqs on a random port, with a queue and its DLQ (RedrivePolicy maxReceiveCount 2, visibility 1 s). */
async function startSqs(): Promise<SqsStandIn> {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  // An explicit endpoint: the queue URLs fauxqs returns name a host that does not resolve.
  const client = new SQSClient({
    endpoint: `http://127.0.0.1:${server.port}`,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  let batchRequests = 0;
  client.middlewareStack.add(
    (next, context) => (args) => {
      if (context.commandName === 'SendMessageBatchCommand') batchRequests++;
      return next(args);
    },
    { step: 'initialize', name: 'countBatchRequests' },
  );
  const dlq = await client.send(new CreateQueueCommand({ QueueName: 'verifier-dlq' }));
  const dlqUrl = dlq.QueueUrl ?? assert.fail('no DLQ URL');
  const dlqAttributes = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: 'verifier',
      Attributes: {
        VisibilityTimeout: String(VISIBILITY_TIMEOUT_SECONDS),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqAttributes.Attributes?.QueueArn,
          maxReceiveCount: MAX_RECEIVE_COUNT,
        }),
      },
    }),
  );
  const queueUrl = queue.QueueUrl ?? assert.fail('no queue URL');
  const attributes = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return {
    server,
    client,
    queueUrl,
    queueArn: attributes.Attributes?.QueueArn ?? assert.fail('no queue ARN'),
    dlqUrl,
    batchRequests: () => batchRequests,
    stop: async () => {
      client.destroy();
      await server.stop();
    },
  };
}

async function receiveMessages(
  client: SQSClient,
  queueUrl: string,
  max: number,
  waitMs: number,
  messageAttributes = false,
): Promise<Message[]> {
  const output = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: Math.ceil(waitMs / 1000),
      MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
      MessageAttributeNames: messageAttributes ? ['All'] : undefined,
    }),
  );
  return output.Messages ?? [];
}

async function drain(client: SQSClient, queueUrl: string): Promise<Message[]> {
  const all: Message[] = [];
  for (;;) {
    const messages = await receiveMessages(client, queueUrl, 10, 0, true);
    if (messages.length === 0) return all;
    for (const message of messages) {
      all.push(message);
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
  }
}

async function sqsHarness(): Promise<QueueHarness> {
  const sqs = await startSqs();
  const { client, queueUrl, queueArn, dlqUrl } = sqs;
  const queue = new SqsQueue({ client, queueUrl });
  return {
    queue,
    deadLetters: new SqsDeadLetters({ client, queueUrl: dlqUrl }),
    visibilityTimeoutSeconds: VISIBILITY_TIMEOUT_SECONDS,
    maxReceiveCount: MAX_RECEIVE_COUNT,
    sendRaw: async (body) => {
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    },
    receive: async (max, waitMs) =>
      (await receiveMessages(client, queueUrl, max, waitMs)).map((message) => toSqsRecord(message, queueArn)),
    delete: async (receiptHandle) => {
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
    },
    // The adapter's own ChangeMessageVisibility, which the verifier's backoff uses.
    changeVisibility: (receiptHandle, seconds) => queue.changeVisibility(receiptHandle, seconds),
    drainDeadLetters: async () =>
      (await drain(client, dlqUrl)).map((message) => ({
        body: message.Body ?? '',
        reason: message.MessageAttributes?.[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue,
      })),
    depth: () => approximateQueueDepth(client, queueUrl),
    elapse: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    batchRequests: sqs.batchRequests,
    teardown: sqs.stop,
  };
}

queueContract('SQS (fauxqs)', sqsHarness);

async function standIn(t: TestContext): Promise<SqsStandIn> {
  const sqs = await startSqs();
  t.after(() => sqs.stop());
  return sqs;
}

/** A client whose SendMessageBatch answers come from `answer`, for the failure paths fauxqs will not produce. */
function scriptedClient(answer: (entryIds: string[]) => Promise<unknown>): { client: SQSClient; bodies: string[] } {
  const bodies: string[] = [];
  const client = {
    send: (command: { input: { Entries?: { Id: string; MessageBody: string }[] } }) => {
      const entries = command.input.Entries ?? [];
      bodies.push(...entries.map((entry) => entry.MessageBody));
      return answer(entries.map((entry) => entry.Id));
    },
  } as unknown as SQSClient;
  return { client, bodies };
}

describe('SqsQueue', () => {
  it('reports failed batch entries by count and code, never by body', async () => {
    const { client, bodies } = scriptedClient((ids) =>
      Promise.resolve({
        Successful: [],
        Failed: ids
          .filter((id) => id === '3' || id === '11')
          .map((Id) => ({ Id, SenderFault: false, Code: 'InternalError', Message: 'try again' })),
      }),
    );
    const queue = new SqsQueue({ client, queueUrl: 'https://sqs.example/000000000000/q' });
    const messages = Array.from({ length: 12 }, (_, i) => ({ message: app(`secret-app-${i}`) }));
    const error = await queue.sendBatch(messages).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof SqsBatchSendError);
    assert.equal(error.message, 'SendMessageBatch: 2 of 12 messages failed (InternalError x2)');
    assert.deepEqual(error.failedIndexes, [3, 11]);
    assert.equal(bodies.length, 12, 'both chunks were sent');
    assert.ok(!error.message.includes('secret-app'));
  });

  it('counts every entry of a chunk whose request failed, and still sends the other chunks', async () => {
    let call = 0;
    const { client, bodies } = scriptedClient(() => {
      call++;
      if (call === 1) return Promise.reject(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));
      return Promise.resolve({ Successful: [], Failed: [] });
    });
    const queue = new SqsQueue({ client, queueUrl: 'https://sqs.example/000000000000/q' });
    await assert.rejects(
      queue.sendBatch(Array.from({ length: 15 }, (_, i) => ({ message: app(`a${i}`) }))),
      (error: unknown) =>
        error instanceof SqsBatchSendError &&
        error.message === 'SendMessageBatch: 10 of 15 messages failed (TimeoutError x10)' &&
        error.failedIndexes.length === 10,
    );
    assert.equal(bodies.length, 15);
  });

  it('changes visibility only to whole seconds from 0 to 12 h, sending nothing otherwise', async () => {
    const sent: unknown[] = [];
    const client = { send: (command: unknown) => Promise.resolve(void sent.push(command)) } as unknown as SQSClient;
    const queue = new SqsQueue({ client, queueUrl: 'https://sqs.example/000000000000/q' });
    for (const seconds of [-1, 0.5, 43_201, Number.NaN]) {
      await assert.rejects(queue.changeVisibility('rh', seconds), RangeError, String(seconds));
    }
    assert.equal(sent.length, 0);
    await queue.changeVisibility('rh', 43_200);
    assert.ok(sent[0] instanceof ChangeMessageVisibilityCommand);
    assert.deepEqual(sent[0].input, {
      QueueUrl: 'https://sqs.example/000000000000/q',
      ReceiptHandle: 'rh',
      VisibilityTimeout: 43_200,
    });
  });

  it('sends nothing for an empty batch', async (t) => {
    const sqs = await standIn(t);
    await new SqsQueue({ client: sqs.client, queueUrl: sqs.queueUrl }).sendBatch([]);
    assert.equal(sqs.batchRequests(), 0);
  });
});

describe('SqsDeadLetters', () => {
  it('sends the raw body with the reason, source message id and receive count as attributes', async (t) => {
    const sqs = await standIn(t);
    const deadLetters = new SqsDeadLetters({ client: sqs.client, queueUrl: sqs.dlqUrl });
    await deadLetters.deadLetter('not json', 'malformed JSON', { messageId: 'm-1', receiveCount: 3 });
    await deadLetters.deadLetter('{"v":9}', '');
    const [first, second] = await drain(sqs.client, sqs.dlqUrl);
    assert.equal(first?.Body, 'not json');
    assert.equal(first?.MessageAttributes?.[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue, 'malformed JSON');
    assert.equal(first?.MessageAttributes?.[DEAD_LETTER_SOURCE_MESSAGE_ID_ATTRIBUTE]?.StringValue, 'm-1');
    assert.equal(first?.MessageAttributes?.[DEAD_LETTER_RECEIVE_COUNT_ATTRIBUTE]?.StringValue, '3');
    assert.equal(second?.Body, '{"v":9}');
    assert.equal(second?.MessageAttributes?.[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue, 'unspecified');
  });
});

describe('consumeBatch over SQS records', () => {
  it('reads the receive count and the queue ARN from a received message', async (t) => {
    const sqs = await standIn(t);
    await new SqsQueue({ client: sqs.client, queueUrl: sqs.queueUrl }).send(app('podinfo'));
    const [first] = await receiveMessages(sqs.client, sqs.queueUrl, 1, 1000);
    assert.ok(first?.ReceiptHandle);
    await sqs.client.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: sqs.queueUrl,
        ReceiptHandle: first.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const [message] = await receiveMessages(sqs.client, sqs.queueUrl, 1, 1000);
    assert.ok(message);
    const record = toSqsRecord(message, sqs.queueArn);
    assert.equal(record.eventSourceARN, sqs.queueArn);
    assert.equal(record.awsRegion, 'us-east-1');
    assert.equal(record.eventSource, 'aws:sqs');
    const seen: number[] = [];
    const response = await consumeBatch(
      { Records: [record] },
      (_message, context) => {
        seen.push(context.receiveCount);
        return Promise.resolve();
      },
      { deadLetters: new SqsDeadLetters({ client: sqs.client, queueUrl: sqs.dlqUrl }), logger: silentLogger },
    );
    assert.deepEqual(response, { batchItemFailures: [] });
    assert.deepEqual(seen, [2]);
  });
});
