// What one Flux event costs on AWS in DynamoDB and SQS requests, and in dollars per million events.
//
// How: the real AWS code path in one process (bench/aws-world.ts): the receiver's `handleRequest` with the SqsQueue
// adapter against fauxqs, then the verifier as its Lambda handler runs it (`consumeBatch` over `createVerifier`) fed
// by a stand-in for the Lambda event source mapping (ReceiveMessage, batch, DeleteMessageBatch), with the DynamoDB
// store on dynalite. Every DynamoDB request asks for `ReturnConsumedCapacity: 'TOTAL'`, and the units dynalite
// reports are summed (DynamoDB's rules: reads in 4 KB units, halved when eventually consistent, which here only the
// apps-index Query is; writes in 1 KB units); a Query that finds nothing, which dynalite reports as 0, is counted at
// DynamoDB's minimum read unit. The pipeline is test/loop/harness.ts's: dev (one target) → prod (two targets),
// automatic promotion.
//
// Two events, measured one after the other on the same table:
// - redundant: the dev HelmRelease already recorded at 6.9.1 and every environment at 6.9.1; Flux reports 6.9.1
//   again (a retried delivery, or a second controller reporting the same rollout);
// - changing: dev now runs 6.9.2, healthy; the event leads to a promotion of 6.9.2 into prod. Included: everything up
//   to and including the promotion record (created, claimed, completed) and its two audit entries. The promoter
//   is a RecordingPromoter: the pull request's GitHub requests are measured by bench/github-promotion.ts; a
//   pull-request promotion writes exactly the same records.
// Included: every DynamoDB and SQS request of the receiver and the verifier for that event. Excluded: Secrets
// Manager (values cached 5 min per warm container), the leaf cluster's GET, CloudWatch Logs, and Lambda (noted).
// The scheduled poll, which runs whether or not events come, is reported separately as a fixed monthly figure.
import { deployed, pipelineDocument, upgradeEvent } from '../test/loop/harness.js';
import { startAwsWorld, type AwsWorld, type DynamoUsage, type Usage } from './aws-world.js';
import { MAX_BATCH_SIZE, POLLS_PER_MONTH, PRICE_SOURCES, PRICES } from './prices.js';
import { formatNumber, formatRatio, runIfMain, type Bench, type Measurement } from './report.js';

/** Idle event source mapping: pollers assumed (Lambda's starting concurrency for SQS), one 20 s long poll each. */
const IDLE_POLLERS = 5;
const IDLE_RECEIVES_PER_MONTH = (IDLE_POLLERS * (30 * 24 * 3600)) / 20;

/** The most DynamoDB reads a redundant event may cost: the receiver's index lookup and key, the verifier's status. */
const REDUNDANT_READS_LIMIT = 4;

interface EventCost {
  dynamo: DynamoUsage;
  /** DynamoDB requests by side, e.g. `receiver: GetItem 1, Query 1`. */
  breakdown: string;
  sqsBySide: string;
  /** SQS requests with the batch this run had (one message per batch). */
  sqsRequests: number;
  /** Of those, made by the event source mapping (ReceiveMessage, DeleteMessageBatch): amortised over a batch. */
  sqsPerBatch: number;
  verifierSends: number;
}

function total(usage: Usage): DynamoUsage {
  const sum: DynamoUsage = {
    requests: new Map(),
    readRequests: 0,
    writeRequests: 0,
    readUnits: 0,
    writeUnits: 0,
    failedConditionalWrites: 0,
    emptyQueries: 0,
  };
  for (const side of [usage.dynamo.receiver, usage.dynamo.verifier]) {
    for (const [operation, count] of side.requests)
      sum.requests.set(operation, (sum.requests.get(operation) ?? 0) + count);
    sum.readRequests += side.readRequests;
    sum.writeRequests += side.writeRequests;
    sum.readUnits += side.readUnits;
    sum.writeUnits += side.writeUnits;
    sum.failedConditionalWrites += side.failedConditionalWrites;
    sum.emptyQueries += side.emptyQueries;
  }
  return sum;
}

const operations = (requests: Map<string, number>): string =>
  [...requests].map(([operation, count]) => `${operation} ${count}`).join(', ') || 'none';

function eventCost(usage: Usage): EventCost {
  const count = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
  const esm = (usage.sqs.verifier.get('ReceiveMessage') ?? 0) + (usage.sqs.verifier.get('DeleteMessageBatch') ?? 0);
  return {
    dynamo: total(usage),
    breakdown:
      `receiver: ${operations(usage.dynamo.receiver.requests)}; ` +
      `verifier: ${operations(usage.dynamo.verifier.requests)}`,
    sqsBySide: `receiver: ${operations(usage.sqs.receiver)}; event source mapping + verifier: ${operations(usage.sqs.verifier)}`,
    sqsRequests: count(usage.sqs.receiver) + count(usage.sqs.verifier),
    sqsPerBatch: esm,
    verifierSends: (usage.sqs.verifier.get('SendMessage') ?? 0) + (usage.sqs.verifier.get('SendMessageBatch') ?? 0),
  };
}

/** Dollars per million events: DynamoDB units, and SQS requests with the ESM's requests shared by `batch` events. */
function dollarsPerMillion(cost: EventCost, batch = 1): { dynamo: number; sqs: number; total: number } {
  const dynamo =
    (cost.dynamo.readUnits * PRICES.readRequestUnit + cost.dynamo.writeUnits * PRICES.writeRequestUnit) * 1e6;
  const sqsRequests = cost.sqsRequests - cost.sqsPerBatch + cost.sqsPerBatch / batch;
  const sqs = sqsRequests * PRICES.sqsRequest * 1e6;
  return { dynamo, sqs, total: dynamo + sqs };
}

const dollars = (value: number): string => `$${value < 10 ? value.toFixed(2) : formatNumber(value)}`;
const units = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));

function dynamoValue(cost: EventCost): string {
  const { dynamo } = cost;
  return (
    `${dynamo.readRequests} reads (${units(dynamo.readUnits)} RRU), ` +
    `${dynamo.writeRequests} writes (${units(dynamo.writeUnits)} WRU)`
  );
}

/** One event end to end: POST to the receiver, one poll of the event source mapping, nothing left behind. */
async function measureEvent(world: AwsWorld, body: string): Promise<EventCost> {
  world.resetUsage();
  const status = await world.deliverEvent('dev', body);
  if (status !== 202) throw new Error(`the receiver answered ${status}, not 202`);
  const received = await world.runEventSourceMapping(1);
  if (received !== 1) throw new Error(`the event source mapping received ${received} messages, not 1`);
  const depth = await world.queueDepth();
  if (depth !== 0) throw new Error(`${depth} message(s) left on the queue after the event`);
  return eventCost(world.usage());
}

export const benchCostPerEvent: Bench = async () => {
  const world = await startAwsWorld(pipelineDocument, ['dev', 'prod']);
  try {
    // Every environment runs 6.9.1 and the store has seen it (one scheduled poll).
    world.cluster('dev').put(deployed('6.9.1'));
    world.cluster('prod').put(deployed('6.9.1', 'apps'));
    world.cluster('prod').put(deployed('6.9.1', 'apps-eu'));
    await world.pollAndDrain();
    if (world.promoter.promotions().length !== 0) throw new Error('a promotion happened while setting the scene');

    // The scheduled poll on its own: its cost is fixed per month, whatever the events.
    world.resetUsage();
    await world.pollAndDrain();
    const pollUsage = world.usage();
    const pollCost = eventCost({
      ...pollUsage,
      dynamo: { ...pollUsage.dynamo, receiver: pollUsage.dynamo.setup },
      sqs: { ...pollUsage.sqs, receiver: pollUsage.sqs.setup },
    });

    const redundant = await measureEvent(world, upgradeEvent('6.9.1'));
    const redundantAgain = await measureEvent(world, upgradeEvent('6.9.1'));
    if (redundantAgain.dynamo.readRequests !== redundant.dynamo.readRequests) {
      throw new Error('two identical redundant events cost different numbers of reads');
    }
    if (redundant.dynamo.writeRequests !== 0) {
      throw new Error(`a redundant event wrote to DynamoDB (${operations(redundant.dynamo.requests)})`);
    }
    if (world.promoter.promotions().length !== 0) throw new Error('a redundant event promoted');

    world.cluster('dev').put(deployed('6.9.2'));
    const changing = await measureEvent(world, upgradeEvent('6.9.2'));
    const promotions = world.promoter.promotions();
    if (promotions.length !== 1 || promotions[0]?.env !== 'prod' || promotions[0].revision !== '6.9.2') {
      throw new Error(`the changing event did not promote 6.9.2 to prod (${JSON.stringify(promotions)})`);
    }
    const record = await world.store.getPromotion({ namespace: 'flux-system', name: 'podinfo' }, 'prod', '6.9.2');
    if (record?.state !== 'succeeded') throw new Error('the promotion record did not end succeeded');

    // Flux repeats the rollout's event after the promotion: redundant again, now with a promotion record to read.
    const afterPromotion = await measureEvent(world, upgradeEvent('6.9.2'));
    if (world.promoter.promotions()[0]?.calls !== 1) throw new Error('the repeated event promoted again');

    // The premise of a redundant event: it decides nothing, so it writes nothing and reads at most 4 items.
    for (const [which, cost] of [
      ['redundant event', redundant],
      ['redundant event after the promotion', afterPromotion],
    ] as const) {
      if (cost.dynamo.writeRequests > 0 || cost.dynamo.readRequests > REDUNDANT_READS_LIMIT) {
        throw new Error(
          `${which}: ${cost.dynamo.readRequests} reads and ${cost.dynamo.writeRequests} writes, over the ` +
            `${REDUNDANT_READS_LIMIT} reads and no write of an event that changes nothing (${cost.breakdown})`,
        );
      }
    }

    const redundantDollars = dollarsPerMillion(redundant);
    const changingDollars = dollarsPerMillion(changing);
    const redundantDollarsBatched = dollarsPerMillion(redundant, MAX_BATCH_SIZE);
    const changingDollarsBatched = dollarsPerMillion(changing, MAX_BATCH_SIZE);
    const redundantUnits = redundant.dynamo.readUnits + redundant.dynamo.writeUnits;
    const changingUnits = changing.dynamo.readUnits + changing.dynamo.writeUnits;
    const pollMonthly = dollarsPerMillion(pollCost).total * (POLLS_PER_MONTH / 1e6);

    const measurements: Measurement[] = [
      {
        name: 'redundant event (target already recorded at that revision): DynamoDB',
        value: dynamoValue(redundant),
        note:
          `${redundant.breakdown}; reads strongly consistent but the apps-index Query (0.5 RRU); units as ` +
          `dynalite reports them, except ` +
          `${redundant.dynamo.emptyQueries} Queries that found nothing, counted at DynamoDB's minimum of 1 RRU; ` +
          `the same event after a promotion: ${dynamoValue(afterPromotion)}`,
      },
      {
        name: 'changing event (new healthy dev revision → promotion to prod): DynamoDB',
        value: dynamoValue(changing),
        baseline: `redundant: ${units(redundantUnits)} capacity units, ${redundant.dynamo.readRequests + redundant.dynamo.writeRequests} requests`,
        ratio: `${formatRatio(changingUnits, redundantUnits)} the capacity units`,
        note:
          `${changing.breakdown}; up to and including the promotion record (created already claimed, completed) and 2 audit ` +
          `entries; ${changing.dynamo.failedConditionalWrites} refused conditional writes; no GSI item written`,
      },
      {
        name: 'SQS requests per event (redundant and changing alike)',
        value:
          `${redundant.sqsRequests} with one message per batch; ` +
          `${units(redundant.sqsRequests - redundant.sqsPerBatch + redundant.sqsPerBatch / MAX_BATCH_SIZE)} with full batches of ${MAX_BATCH_SIZE}`,
        baseline: `changing: ${changing.sqsRequests}`,
        ratio: formatRatio(changing.sqsRequests, redundant.sqsRequests),
        note:
          `${redundant.sqsBySide}; ReceiveMessage and DeleteMessageBatch are per batch (stack: batch size ${MAX_BATCH_SIZE}, ` +
          `1 s window; sparse events arrive one per batch); verifier SendMessage: ${changing.verifierSends} (no re-check ` +
          `for a settled target); messages < 64 KB, so one request each`,
      },
      {
        name: 'redundant event: $ per million events (DynamoDB + SQS, one message per batch)',
        value: `${dollars(redundantDollars.total)} (DynamoDB ${dollars(redundantDollars.dynamo)}, SQS ${dollars(redundantDollars.sqs)})`,
        note: `${dollars(redundantDollarsBatched.total)} with full batches of ${MAX_BATCH_SIZE}; ${PRICE_SOURCES}`,
      },
      {
        name: 'changing event: $ per million events (DynamoDB + SQS, one message per batch)',
        value: `${dollars(changingDollars.total)} (DynamoDB ${dollars(changingDollars.dynamo)}, SQS ${dollars(changingDollars.sqs)})`,
        baseline: `redundant: ${dollars(redundantDollars.total)}`,
        ratio: formatRatio(changingDollars.total, redundantDollars.total),
        note:
          `${dollars(changingDollarsBatched.total)} with full batches of ${MAX_BATCH_SIZE}; not included: Lambda, 2 ` +
          `invocations per event (receiver, verifier batch) = $${(2 * PRICES.lambdaRequest * 1e6).toFixed(2)} per ` +
          'million events in request charges ($0.20/M, https://aws.amazon.com/lambda/pricing/) plus duration',
      },
      {
        name: 'fixed monthly: scheduled poll (rate 5 min) + idle event source mapping',
        value: `${dollars(pollMonthly + IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest)} per month`,
        note:
          `one poll of this fleet (2 clusters, 1 kind): ${dynamoValue(pollCost)}, ${pollCost.sqsRequests} SQS requests ` +
          `(${pollCost.sqsBySide}) × ${formatNumber(POLLS_PER_MONTH)} polls = ${dollars(pollMonthly)}; idle ESM: ` +
          `${IDLE_POLLERS} pollers × one 20 s long poll = ${formatNumber(IDLE_RECEIVES_PER_MONTH)} ReceiveMessage ` +
          `= ${dollars(IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest)} (assumed poller count; before SQS's 1 M free requests)`,
      },
    ];
    return { title: 'Cost per Flux event (AWS, on-demand)', measurements };
  } finally {
    await world.stop();
  }
};

await runIfMain(import.meta.url, benchCostPerEvent);
