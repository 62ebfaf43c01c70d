// What applying a PipelineSet of 300 apps costs (docs/pipeline-sets.md, "What it costs"), beside the same 300
// pipelines written by hand: the wall time of `apply` (the loader's expansion and validation, then the writes) and its
// DynamoDB requests, and what the poller then enqueues for each fleet. The store is the DynamoDB adapter on dynalite
// (bench/dynamo.ts), every request counted; each fleet has its own table. Wall times include dynalite (a
// single-process stand-in, far slower than DynamoDB): upper bounds.
import { applyConfiguration, type ApplyPorts } from '../lib/apply/index.js';
import { enqueuePolls } from '../lib/poller/poller.js';
import { RecordingQueue } from '../lib/testing/recording-queue.js';
import { READ_OPERATIONS, startBenchDynamo, WRITE_OPERATIONS } from './dynamo.js';
import { formatMs, formatNumber, formatRatio, runIfMain, type Bench, type Measurement } from './report.js';

const NS = 'flux-system';
const APPS = 300;
const app = (index: number) => `app-${String(index + 1).padStart(3, '0')}`;

const CLUSTERS = ['dev', 'staging', 'prod']
  .map(
    (name) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: { name: ${name}, namespace: ${NS} }
spec: { eks: { clusterName: ${name}, region: eu-west-1 } }
`,
  )
  .join('---\n');

const environments = (name: string) => `
    - name: dev
      targets: [{ namespace: ${name}, clusterRef: { kind: GitopsCluster, name: dev } }]
    - name: staging
      targets: [{ namespace: ${name}, clusterRef: { kind: GitopsCluster, name: staging } }]
    - name: prod
      targets: [{ namespace: ${name}, clusterRef: { kind: GitopsCluster, name: prod } }]
  promotion:
    strategy: { notification: {} }`;

const handWritten = (name: string) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: { name: ${name}, namespace: ${NS} }
spec:
  appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${name} }
  environments:${environments(name)}
`;

const pipelineSet = `apiVersion: pipeline-controller.io/v1alpha1
kind: PipelineSet
metadata: { name: web-apps, namespace: ${NS} }
spec:
  generators:
    - list:
        elements:
${Array.from({ length: APPS }, (_, i) => `          - { app: ${app(i)} }`).join('\n')}
  template:
    metadata: { name: '{{ app }}' }
    spec:
      appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: '{{ app }}' }
      environments:
        - name: dev
          targets: [{ namespace: '{{ app }}', clusterRef: { kind: GitopsCluster, name: dev } }]
        - name: staging
          targets: [{ namespace: '{{ app }}', clusterRef: { kind: GitopsCluster, name: staging } }]
        - name: prod
          targets: [{ namespace: '{{ app }}', clusterRef: { kind: GitopsCluster, name: prod } }]
      promotion:
        strategy: { notification: {} }
`;

interface Applied {
  ms: number;
  reads: number;
  writes: number;
  /** Messages the poller sends for the fleet, by type. */
  polls: number;
  checks: number;
}

async function applyFleet(text: string): Promise<Applied> {
  const dynamo = await startBenchDynamo();
  try {
    const queue = new RecordingQueue();
    const ports: ApplyPorts = {
      description: 'the bench table',
      store: dynamo.store,
      putSecret: () => Promise.resolve(),
      secretKeys: () => Promise.resolve(undefined),
      enqueue: async (message) => {
        await queue.send(message);
        return true;
      },
      identity: () => Promise.resolve('local:bench'),
    };
    const apply = async (yaml: string) => {
      const applied = await applyConfiguration(ports, { source: { text: yaml, file: 'bench.yaml' } });
      if (!applied.ok) throw new Error(`apply refused: ${applied.problems.slice(0, 3).join('; ')}`);
      return applied;
    };
    await apply(CLUSTERS);
    dynamo.resetCounts();
    const started = performance.now();
    const applied = await apply(text);
    const ms = performance.now() - started;
    if (applied.changedPipelines.length !== APPS)
      throw new Error(`applied ${applied.changedPipelines.length} pipelines`);
    let reads = 0;
    let writes = 0;
    for (const [operation, count] of dynamo.operations) {
      if (READ_OPERATIONS.has(operation)) reads += count;
      else if (WRITE_OPERATIONS.has(operation)) writes += count;
    }
    queue.take();
    await enqueuePolls({ store: dynamo.store, queue });
    const sent = queue.take().map(({ message }) => message.type);
    return {
      ms,
      reads,
      writes,
      polls: sent.filter((type) => type === 'poll').length,
      checks: sent.filter((type) => type === 'check-pipeline').length,
    };
  } finally {
    await dynamo.stop();
  }
}

export const benchPipelineSets: Bench = async () => {
  const byHand = await applyFleet(Array.from({ length: APPS }, (_, i) => handWritten(app(i))).join('---\n'));
  const generated = await applyFleet(pipelineSet);
  const describe = (applied: Applied) =>
    `${formatMs(applied.ms)}; DynamoDB ${formatNumber(applied.reads)} reads, ${formatNumber(applied.writes)} writes`;
  const measurements: Measurement[] = [
    {
      name: `apply of one PipelineSet generating ${APPS} pipelines (dev → staging → prod)`,
      value: describe(generated),
      baseline: `${describe(byHand)} (${APPS} Pipelines written by hand)`,
      ratio: formatRatio(generated.ms, byHand.ms),
    },
    {
      name: `what the poller then sends, for the ${APPS} generated pipelines`,
      value: `${generated.polls} poll, ${generated.checks} check-pipeline messages`,
      baseline: `${byHand.polls} poll, ${byHand.checks} check-pipeline messages (written by hand)`,
    },
  ];
  return { title: 'PipelineSets', measurements };
};

await runIfMain(import.meta.url, benchPipelineSets);
