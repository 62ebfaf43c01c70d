// How the poll grows with the fleet: the product-path first and steady polls of bench/leaf-cluster-load.ts at 2,000,
// 10,000, 50,000 and 100,000 targets (40, 200, 1,000 and 2,000 clusters, each running the same 50 apps, one pipeline
// per app), each size in a process of its own (BENCH_FLEET_FIGURES=1 makes leaf-cluster-load print its figures as one
// JSON line and skip its baselines). Reported per size: LISTs, DynamoDB operations and capacity units, wall time on
// dynalite, and the monthly cost of the scheduled steady poll every 5 minutes, all in.
//
// The monthly cost is DynamoDB (capacity units as dynalite reports them, corrected as bench/dynamo.ts says), SQS
// (the SendMessageBatch per 10 messages, the event source mapping's ReceiveMessage and DeleteMessageBatch per batch
// of 10, and its long polls of the idle queue), Lambda requests (the poller's run and one verifier invocation per
// batch), Lambda duration (the verifier's CPU per LIST measured by bench/list-cpu.ts as a poll makes it, a new TLS
// connection per cluster and poll, with the API servers' latency assumed where it is the longer) and the table's
// storage.
//
// The bench checks its premise, and fails `npm run bench` when it breaks: every size makes exactly one LIST per
// (cluster, kind) on both polls; the steady poll's DynamoDB requests grow with its messages and the pipelines and its
// read units with the messages and the pipelines (and at most an eighth of a unit per cluster, the digests read by
// size), never with the targets (the poll digest, docs/architecture.md); the first poll after the apply reads at most
// 4 units per target (each pipeline decided once or twice, not once per batch of poll messages). 100,000 targets
// costing more than $5 a month, or the first poll after an apply of 50,000 taking more than 60 s or 200,000 read
// units, is a goal not met: the run fails too, once every figure is printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FLEET_FIGURES_PREFIX, type FleetFigures, type PollFigures } from './leaf-cluster-load.js';
import { POLL_GROUPS } from '../lib/pipeline/model.js';
import { PAIR_CONCURRENCY } from '../lib/verifier/handlers/poll-clusters.js';
import { listCpuMs } from './list-cpu.js';
import { MAX_BATCH_SIZE, MEMORY_GB, POLLS_PER_MONTH, PRICE_SOURCES, PRICES, vcpuShare } from './prices.js';
import { formatNumber, runIfMain, type Bench, type BenchSection } from './report.js';

/**
 * Clusters per size, 50 apps each: 2,000, 10,000, 50,000 and 100,000 targets. `BENCH_SCALING_CLUSTERS=10,40`
 * overrides.
 */
const SIZES = (process.env.BENCH_SCALING_CLUSTERS ?? '40,200,1000,2000').split(',').map(Number);
const APPS = 50;
/** The HelmReleases of a (cluster, kind) in leaf-cluster-load (four fifths of the apps): the larger LIST. */
const HELM_RELEASES_PER_PAIR = 40;

const LEAF_CLUSTER_LOAD = fileURLToPath(new URL('./leaf-cluster-load.ts', import.meta.url));

/** Runs leaf-cluster-load for `clusters` in a child process and returns the figures it printed. */
async function figuresAt(clusters: number): Promise<FleetFigures> {
  const child = spawn(process.execPath, ['--import', 'tsx', LEAF_CLUSTER_LOAD], {
    env: {
      ...process.env,
      BENCH_FLEET_CLUSTERS: String(clusters),
      BENCH_FLEET_APPS: String(APPS),
      BENCH_FLEET_FIGURES: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(FLEET_FIGURES_PREFIX));
  if (code !== 0 || !line) {
    throw new Error(`leaf-cluster-load at ${clusters} clusters failed (exit ${code}): ${stderr.slice(-2000)}`);
  }
  return JSON.parse(line.slice(FLEET_FIGURES_PREFIX.length)) as FleetFigures;
}

/**
 * The premise: one LIST per pair on both polls; the steady poll's store requests and read units grow with its
 * messages and pipelines, never with the pairs' targets. Its poll digests are read by poll group (pollGroupOf): a
 * Query per group a message's clusters are in, and the poller deals them group by group, so at most one Query per
 * message and one per group besides; billed by the size read, about 1/16 unit per cluster (two digests of some 250
 * bytes, eventually consistent; the budget allows twice that), where a read per cluster cost ½.
 */
function checkPremise(figures: FleetFigures): void {
  for (const [which, poll] of [
    ['first', figures.first],
    ['steady', figures.steady],
  ] as const) {
    if (poll.lists !== figures.pairs) {
      throw new Error(`${figures.targets} targets, ${which} poll: ${poll.lists} LISTs for ${figures.pairs} pairs`);
    }
  }
  const messages = figures.steady.messages['poll-clusters'] ?? 0;
  const budget = 2 * messages + POLL_GROUPS + 4 * figures.pipelines + POLLER_REQUESTS;
  if (figures.steady.dynamoOperations > budget) {
    throw new Error(
      `${figures.targets} targets: the steady poll made ${figures.steady.dynamoOperations} DynamoDB requests, ` +
        `over ${budget} (2 per poll-clusters message, 1 per poll group, 4 per pipeline, ${POLLER_REQUESTS} for the ` +
        'poller): the poll digest does not hold',
    );
  }
  const units = figures.clusters / 8 + 2 * messages + POLL_GROUPS / 2 + 4 * figures.pipelines + POLLER_REQUESTS;
  if (figures.steady.readUnits > units) {
    throw new Error(
      `${figures.targets} targets: the steady poll read ${Math.round(figures.steady.readUnits)} units, over ` +
        `${Math.round(units)} (⅛ per cluster, 2 per message, ½ per poll group, 4 per pipeline): it grows with the ` +
        'targets, or the poll digests are read cluster by cluster',
    );
  }
  const firstUnits = FIRST_POLL_UNITS_PER_TARGET * figures.targets;
  if (figures.first.readUnits > firstUnits) {
    throw new Error(
      `${figures.targets} targets: the first poll read ${Math.round(figures.first.readUnits)} units, over ` +
        `${FIRST_POLL_UNITS_PER_TARGET} per target: its pipelines were decided more than about twice each ` +
        '(lib/verifier/deferred-decisions.ts)',
    );
  }
}

/**
 * The first poll after an apply reads each status once before writing it (a unit each: the batch read of a pristine
 * pair), then each pipeline's statuses once per decision (a unit each) besides a few reads per pair: a decision that
 * began after a poll message's changes answers the later messages of the poll, so each pipeline is decided once or
 * twice, not once per batch of poll messages (4 at 50,000 targets, 8 at 100,000).
 */
const FIRST_POLL_UNITS_PER_TARGET = 4;

/** The poller's own requests on a steady poll: the generation, the plan, the clusters' and sources' pages. */
const POLLER_REQUESTS = 10;
/**
 * An assumed time for a leaf cluster's API server to answer one LIST of a (cluster, kind) (a regional EKS endpoint,
 * 50 objects; the bench's fakes answer in 20 ms). The CPU time the verifier spends on each LIST is measured.
 */
const LIST_LATENCY_MS = 100;
/** An assumed time of a store round trip from Lambda (DynamoDB in the region). */
const STORE_ROUND_TRIP_MS = 10;
/** An assumed run time of the poller's invocation: a few store reads and sends. */
const POLLER_RUN_MS = 500;
/** The event source mapping's idle long polls: at least 5 pollers, each a 20 s ReceiveMessage, all month. */
const IDLE_RECEIVES_PER_MONTH = 5 * 3 * 60 * 24 * 30;
/** What a target's items take in the table (status, apps index entry, its share of usage and definitions), about. */
const BYTES_PER_TARGET = 1_000;

interface MonthlyCost {
  total: number;
  dynamo: number;
  sqs: number;
  lambdaRequests: number;
  lambdaDuration: number;
  storage: number;
  /** GB-seconds of one poll. */
  gbSecondsPerPoll: number;
}

/**
 * Dollars per month of the steady poll every 5 minutes: DynamoDB (measured units), SQS and Lambda requests (counted
 * messages, batches of 10), Lambda duration (the measured CPU of each LIST at the verifier's share of a vCPU, or the
 * assumed LIST latency where that is longer, the records of a batch handled at once as Powertools does), the idle
 * queue's long polls and the table's storage.
 */
function monthlyCost(figures: FleetFigures, cpuPerListMs: number): MonthlyCost {
  const poll = figures.steady;
  const pollMessages = poll.messages['poll-clusters'] ?? 0;
  const otherMessages = Object.values(poll.messages).reduce((sum, count) => sum + count, 0) - pollMessages;
  const pollBatches = Math.ceil(pollMessages / MAX_BATCH_SIZE);
  const otherBatches = Math.ceil(otherMessages / MAX_BATCH_SIZE);
  const sends = Object.values(poll.messages).reduce((sum, count) => sum + Math.ceil(count / MAX_BATCH_SIZE), 0);
  const pairsPerMessage = pollMessages > 0 ? figures.pairs / pollMessages : 0;
  const pairsPerBatch = pairsPerMessage * Math.min(MAX_BATCH_SIZE, pollMessages);
  const pollBatchSeconds =
    Math.max(
      (pairsPerBatch * cpuPerListMs) / vcpuShare(MEMORY_GB.verifier),
      Math.ceil(pairsPerMessage / PAIR_CONCURRENCY) * LIST_LATENCY_MS,
    ) /
      1000 +
    (2 * STORE_ROUND_TRIP_MS) / 1000;
  const gbSecondsPerPoll =
    MEMORY_GB.verifier * (pollBatches * pollBatchSeconds + (otherBatches * 2 * STORE_ROUND_TRIP_MS) / 1000) +
    (MEMORY_GB.poller * POLLER_RUN_MS) / 1000;
  const dynamo =
    (poll.readUnits * PRICES.readRequestUnit + poll.writeUnits * PRICES.writeRequestUnit) * POLLS_PER_MONTH;
  const sqs =
    ((sends + 2 * (pollBatches + otherBatches)) * POLLS_PER_MONTH + IDLE_RECEIVES_PER_MONTH) * PRICES.sqsRequest;
  const lambdaRequests = (1 + pollBatches + otherBatches) * PRICES.lambdaRequest * POLLS_PER_MONTH;
  const lambdaDuration = gbSecondsPerPoll * PRICES.lambdaArmGbSecond * POLLS_PER_MONTH;
  const storage = ((figures.targets * BYTES_PER_TARGET) / 1e9) * PRICES.dynamoStorageGbMonth;
  return {
    total: dynamo + sqs + lambdaRequests + lambdaDuration + storage,
    dynamo,
    sqs,
    lambdaRequests,
    lambdaDuration,
    storage,
    gbSecondsPerPoll,
  };
}

/** The fleet-scale goal: 100,000 targets polled every 5 minutes for at most this, all in. */
const GOAL_TARGETS = 100_000;
const GOAL_DOLLARS = 5;
/**
 * The first poll's goal: after an apply of 50,000 targets, at most 60 s on dynalite (the wall time of a
 * machine's run, so an upper bound) and at most 200,000 read units.
 */
const FIRST_POLL_GOAL = { targets: 50_000, wallMs: 60_000, readUnits: 200_000 };

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const dollars = (value: number): string => `$${value.toFixed(2)}`;
const pollText = (poll: PollFigures): string =>
  `${formatNumber(poll.lists)} LIST, ${formatNumber(poll.dynamoOperations)} DynamoDB requests ` +
  `(${formatNumber(poll.dynamoWrites)} writes; ${formatNumber(Math.round(poll.readUnits))} RRU, ` +
  `${formatNumber(Math.round(poll.writeUnits))} WRU), ${seconds(poll.wallMs)} (${seconds(poll.cpuMs)} of CPU)`;

/** What the month's cost is made of. */
const costText = (cost: MonthlyCost, cpuPerListMs: number): string =>
  `DynamoDB ${dollars(cost.dynamo)}, SQS ${dollars(cost.sqs)} (with the idle queue's long polls), Lambda ` +
  `requests ${dollars(cost.lambdaRequests)}, Lambda duration ${dollars(cost.lambdaDuration)} ` +
  `(${cost.gbSecondsPerPoll.toFixed(1)} GB-s a poll: ${cpuPerListMs.toFixed(2)} ms of CPU measured per ` +
  `LIST and digest, a new TLS connection per cluster and poll, at ${MEMORY_GB.verifier * 1024} MB, or ` +
  `${LIST_LATENCY_MS} ms assumed per LIST, ${PAIR_CONCURRENCY} at a time, where longer), storage ` +
  `${dollars(cost.storage)} (about ${formatNumber(BYTES_PER_TARGET)} bytes a target) × ` +
  `${formatNumber(POLLS_PER_MONTH)} polls`;

/** How the first poll after an apply of FIRST_POLL_GOAL.targets missed its goal, if it did. */
function firstPollMisses(first: PollFigures): string[] {
  const at = `the first poll after an apply of ${formatNumber(FIRST_POLL_GOAL.targets)} targets`;
  return [
    ...(first.wallMs <= FIRST_POLL_GOAL.wallMs
      ? []
      : [`${at} took ${seconds(first.wallMs)}, over the ${seconds(FIRST_POLL_GOAL.wallMs)} goal`]),
    ...(first.readUnits <= FIRST_POLL_GOAL.readUnits
      ? []
      : [
          `${at} read ${formatNumber(Math.round(first.readUnits))} units, over the ` +
            `${formatNumber(FIRST_POLL_GOAL.readUnits)} goal`,
        ]),
  ];
}

export const benchFleetScaling: Bench = async (): Promise<BenchSection> => {
  const cpuPerListMs = await listCpuMs(HELM_RELEASES_PER_PAIR);
  const measured: FleetFigures[] = [];
  const unmet: string[] = [];
  for (const clusters of SIZES) {
    const figures = await figuresAt(clusters);
    // Each size's figures as they come: a size that fails a check below would otherwise take them all with it.
    console.error(
      `${formatNumber(figures.targets)} targets: first poll ${pollText(figures.first)}; steady poll ` +
        `${pollText(figures.steady)}`,
    );
    checkPremise(figures);
    const cost = monthlyCost(figures, cpuPerListMs);
    console.error(`${formatNumber(figures.targets)} targets: ${costText(cost, cpuPerListMs)}`);
    if (figures.targets === FIRST_POLL_GOAL.targets) unmet.push(...firstPollMisses(figures.first));
    if (figures.targets >= GOAL_TARGETS && !(cost.total <= GOAL_DOLLARS)) {
      unmet.push(
        `${formatNumber(figures.targets)} targets cost ${dollars(cost.total)} a month, over the ${dollars(GOAL_DOLLARS)} goal`,
      );
    }
    measured.push(figures);
  }
  return {
    title: 'Fleet scaling',
    unmet,
    measurements: measured.flatMap((figures) => {
      const cost = monthlyCost(figures, cpuPerListMs);
      const fleet =
        `${formatNumber(figures.targets)} targets: ${formatNumber(figures.clusters)} clusters × ${APPS} apps, ` +
        `${formatNumber(figures.pairs)} (cluster, kind) pairs, ${figures.pipelines} pipelines`;
      return [
        {
          name: `${fleet}: steady poll`,
          value: pollText(figures.steady),
          baseline: `first poll after the apply: ${pollText(figures.first)}`,
          note:
            `checked: 1 LIST per pair, steady requests ≤ 2 per poll message + 1 per poll group + 4 per pipeline, ` +
            'read units ≤ ⅛ per cluster + 2 per message + ½ per poll group + 4 per pipeline, first poll read units ' +
            `≤ ${FIRST_POLL_UNITS_PER_TARGET} per target; ` +
            'messages handled: ' +
            Object.entries(figures.steady.messages)
              .map(([type, count]) => `${formatNumber(count)} ${type}`)
              .join(', '),
        },
        {
          name: `${fleet}: steady poll every 5 minutes, per month, all in`,
          value: dollars(cost.total),
          note: `${costText(cost, cpuPerListMs)}; ${PRICE_SOURCES}`,
        },
      ];
    }),
  };
};

await runIfMain(import.meta.url, benchFleetScaling);
