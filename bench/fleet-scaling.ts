// How the poll grows with the fleet: the product-path first and steady polls of bench/leaf-cluster-load.ts at 2,000,
// 10,000 and 50,000 targets (40, 200 and 1,000 clusters, each running the same 50 apps, one pipeline per app), each
// size in a process of its own (BENCH_FLEET_FIGURES=1 makes leaf-cluster-load print its figures as one JSON line and
// skip its baselines). Reported per size: LISTs, DynamoDB operations and capacity units, wall time on dynalite, and
// the monthly cost of the scheduled steady poll every 5 minutes.
//
// The monthly cost is DynamoDB (capacity units as dynalite reports them, corrected as bench/dynamo.ts says), SQS
// (the poller's SendMessageBatch per 10 messages, the event source mapping's ReceiveMessage and DeleteMessageBatch
// per batch of 10) and Lambda requests (the poller's run and one verifier invocation per batch); Lambda duration is
// left out, as in bench/cost-per-event.ts: it depends on the clusters' latency, not on this machine.
//
// The bench CHECKS its premise, and fails `npm run bench` when it breaks: every size makes exactly one LIST per
// (cluster, kind) on both polls, and the steady poll's DynamoDB requests grow with the (cluster, kind) pairs and the
// pipelines, never with the targets (at most 2 per pair plus 4 per pipeline, as leaf-cluster-load checks too).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FLEET_FIGURES_PREFIX, type FleetFigures, type PollFigures } from './leaf-cluster-load.js';
import { MAX_BATCH_SIZE, POLLS_PER_MONTH, PRICE_SOURCES, PRICES } from './prices.js';
import { formatNumber, runIfMain, type Bench, type BenchSection } from './report.js';

/** Clusters per size, 50 apps each: 2,000, 10,000 and 50,000 targets. `BENCH_SCALING_CLUSTERS=10,40` overrides. */
const SIZES = (process.env.BENCH_SCALING_CLUSTERS ?? '40,200,1000').split(',').map(Number);
const APPS = 50;

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

/** The premise: one LIST per pair on both polls; steady-poll requests bounded by pairs and pipelines. */
function checkPremise(figures: FleetFigures): void {
  for (const [which, poll] of [
    ['first', figures.first],
    ['steady', figures.steady],
  ] as const) {
    if (poll.lists !== figures.pairs) {
      throw new Error(`${figures.targets} targets, ${which} poll: ${poll.lists} LISTs for ${figures.pairs} pairs`);
    }
  }
  const budget = 2 * figures.pairs + 2 + 4 * figures.pipelines;
  if (figures.steady.dynamoOperations > budget) {
    throw new Error(
      `${figures.targets} targets: the steady poll made ${figures.steady.dynamoOperations} DynamoDB requests, ` +
        `over ${budget} (2 per (cluster, kind) pair and 4 per pipeline): it grows with the targets`,
    );
  }
}

/** Dollars per month of the steady poll every 5 minutes, DynamoDB + SQS + Lambda requests. */
function monthlyCost(figures: FleetFigures): { total: number; dynamo: number; sqs: number; lambda: number } {
  const poll = figures.steady;
  const messages = Object.values(poll.messages).reduce((sum, count) => sum + count, 0);
  const batches = Math.ceil(messages / MAX_BATCH_SIZE);
  const sends = Math.ceil(figures.pairs / MAX_BATCH_SIZE) + Math.ceil(figures.pipelines / MAX_BATCH_SIZE);
  const perPoll = {
    dynamo: poll.readUnits * PRICES.readRequestUnit + poll.writeUnits * PRICES.writeRequestUnit,
    sqs: (sends + 2 * batches) * PRICES.sqsRequest,
    lambda: (1 + batches) * PRICES.lambdaRequest,
  };
  const dynamo = perPoll.dynamo * POLLS_PER_MONTH;
  const sqs = perPoll.sqs * POLLS_PER_MONTH;
  const lambda = perPoll.lambda * POLLS_PER_MONTH;
  return { total: dynamo + sqs + lambda, dynamo, sqs, lambda };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const dollars = (value: number): string => `$${value.toFixed(2)}`;
const pollText = (poll: PollFigures): string =>
  `${formatNumber(poll.lists)} LIST, ${formatNumber(poll.dynamoOperations)} DynamoDB requests ` +
  `(${formatNumber(poll.dynamoWrites)} writes; ${formatNumber(Math.round(poll.readUnits))} RRU, ` +
  `${formatNumber(Math.round(poll.writeUnits))} WRU), ${seconds(poll.wallMs)} (${seconds(poll.cpuMs)} of CPU)`;

export const benchFleetScaling: Bench = async (): Promise<BenchSection> => {
  const measured: FleetFigures[] = [];
  for (const clusters of SIZES) {
    const figures = await figuresAt(clusters);
    checkPremise(figures);
    measured.push(figures);
  }
  return {
    title: 'Fleet scaling',
    measurements: measured.flatMap((figures) => {
      const cost = monthlyCost(figures);
      const fleet =
        `${formatNumber(figures.targets)} targets: ${formatNumber(figures.clusters)} clusters × ${APPS} apps, ` +
        `${formatNumber(figures.pairs)} (cluster, kind) pairs, ${figures.pipelines} pipelines`;
      return [
        {
          name: `${fleet}: steady poll`,
          value: pollText(figures.steady),
          baseline: `first poll after the apply: ${pollText(figures.first)}`,
          note:
            `checked: 1 LIST per pair, steady requests ≤ 2 per pair + 4 per pipeline; messages handled: ` +
            Object.entries(figures.steady.messages)
              .map(([type, count]) => `${formatNumber(count)} ${type}`)
              .join(', '),
        },
        {
          name: `${fleet}: steady poll every 5 minutes, per month`,
          value: dollars(cost.total),
          note:
            `DynamoDB ${dollars(cost.dynamo)}, SQS ${dollars(cost.sqs)}, Lambda requests ${dollars(cost.lambda)} ` +
            `(duration not included) × ${formatNumber(POLLS_PER_MONTH)} polls; ${PRICE_SOURCES}`,
        },
      ];
    }),
  };
};

await runIfMain(import.meta.url, benchFleetScaling);
