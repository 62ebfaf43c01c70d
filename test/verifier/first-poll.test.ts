// A pristine pair's first poll (docs/architecture.md, "The poll summary"): its new statuses are written in batches,
// without a condition, so a status an event records between the poll's read and its batch write is written over with
// the poll's older observation; the poll or the event's writer notices, whichever comes last, and the newer status is
// recorded again. Driven through the real poller and verifier, the Kubernetes reader against fake API servers, and
// the DynamoDB store on dynalite, whose requests are held at the moment each order needs.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { objectKeyString } from '../../lib/pipeline/model.js';
import { createDynamoStore } from '../../lib/store/index.js';
import { startDynalite } from '../support/dynalite.js';
import { pollWorld } from './poll-world.js';
import { DEV, deployed } from './world.js';

async function world(t: TestContext) {
  const dynamo = await startDynalite();
  t.after(() => dynamo.stop());
  const store = createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName });
  const w = await pollWorld(t, store, 'first-poll-test');
  return {
    ...w,
    dynamo,
    store,
    /**
     * Runs `before` once, when the store is about to send the first BatchWriteItem of the dev cluster's statuses (the
     * batch read is done by then), and sends it when `before` is done.
     */
    beforeDevBatchWrite(before: () => Promise<void>): void {
      let done = false;
      dynamo.client.middlewareStack.add(
        (next, context) => async (args) => {
          if (
            !done &&
            context.commandName === 'BatchWriteItemCommand' &&
            writesItemNaming(args.input, `${objectKeyString(DEV.cluster)}/`)
          ) {
            done = true;
            await before();
          }
          return next(args);
        },
        { step: 'initialize', name: 'holdDevBatchWrite' },
      );
    },
    /** What an event of the dev cluster's app makes the verifier do: read it and record what it found. */
    devEvent: () => w.handle({ type: 'check-app', app: DEV, cause: 'event', attempt: 0 }),
  };
}

/**
 * Whether a BatchWriteItem's input, the document client's (not marshalled yet at the `initialize` step), puts an item
 * whose partition key names `text` (a status's key names its cluster).
 */
function writesItemNaming(input: unknown, text: string): boolean {
  const { RequestItems = {} } = input as {
    RequestItems?: Record<string, { PutRequest?: { Item?: { pk?: unknown } } }[]>;
  };
  return Object.values(RequestItems).some((requests) =>
    requests.some(({ PutRequest }) => {
      const pk = PutRequest?.Item?.pk;
      return typeof pk === 'string' && pk.includes(text);
    }),
  );
}

describe('a pristine pair’s first poll', () => {
  it('writes its new statuses in batches: no request per status', async (t) => {
    const w = await world(t);
    let statusPuts = 0;
    w.dynamo.client.middlewareStack.add(
      (next, context) => async (args) => {
        // The document client's input, not marshalled yet at this step.
        const item = (args.input as { Item?: { sk?: unknown } }).Item;
        if (context.commandName === 'PutItemCommand' && item?.sk === 'STATUS') statusPuts++;
        return next(args);
      },
      { step: 'initialize', name: 'countStatusPuts' },
    );
    w.dynamo.resetCounts();
    const others = await w.poll();
    assert.deepEqual(
      others.filter((message) => message.type === 'poll'),
      [],
      'no pair polled again',
    );
    assert.equal(await w.revisionOf(DEV), '6.9.1');
    assert.equal(w.dynamo.operations.get('BatchWriteItem'), 2, 'one per pair: dev (1 app), prod (2 apps)');
    assert.equal(statusPuts, 0, 'no status written on its own');
  });

  it('a status an event recorded before the poll’s summary was written: the poll fails and the pair is polled again', async (t) => {
    const w = await world(t);
    w.beforeDevBatchWrite(async () => {
      // The dev cluster moves on after the poll's LIST, and an event's check records it: a newer status.
      w.dev.put(deployed('6.9.2'));
      w.advance(1_000);
      await w.devEvent();
      assert.equal(await w.revisionOf(DEV), '6.9.2');
    });
    const others = await w.poll();
    assert.equal(await w.revisionOf(DEV), '6.9.1', 'the batch wrote the older status over it');
    const again = others.filter((message) => message.type === 'poll');
    assert.equal(again.length, 1, 'the dev pair is polled again');
    w.advance(1_000);
    for (const message of again) await w.handle(message);
    assert.equal(await w.revisionOf(DEV), '6.9.2');
  });

  it('a status an event recorded, forgotten in the summary only after the poll wrote it: the event records it again', async (t) => {
    const w = await world(t);
    let created!: () => void;
    const eventCreated = new Promise<void>((resolve) => (created = resolve));
    let pollDone!: () => void;
    const pollWritten = new Promise<void>((resolve) => (pollDone = resolve));
    const record = w.store.recordTargetStatus.bind(w.store);
    w.store.recordTargetStatus = async (...args) => {
      const result = await record(...args);
      if (result.created) created();
      return result;
    };
    const forget = w.store.forgetPolledStatus.bind(w.store);
    w.store.forgetPolledStatus = async (...args) => {
      await pollWritten;
      return forget(...args);
    };
    let event: Promise<unknown> | undefined;
    w.beforeDevBatchWrite(async () => {
      w.dev.put(deployed('6.9.2'));
      w.advance(1_000);
      event = w.devEvent();
      await eventCreated;
    });
    const others = await w.poll();
    assert.deepEqual(
      others.filter((message) => message.type === 'poll'),
      [],
      'the poll saw nothing move',
    );
    assert.equal(await w.revisionOf(DEV), '6.9.1', 'the batch wrote the older status over it');
    pollDone();
    await event;
    assert.equal(await w.revisionOf(DEV), '6.9.2');
  });
});
