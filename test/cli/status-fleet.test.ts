// `pipelinectl status` at fleet size (docs/configuration.md, "Targets chosen by cluster labels"; docs/cli.md, "status"): an
// environment that selects 300 clusters shows one summary row counting its targets by phase and then only the
// targets holding it back, capped; `--all-targets` and `-o json` / `-o yaml` show every target. The fleet is applied
// through the real apply action on a data directory, the statuses recorded through the store as a verifier would,
// and the CLI run as a user runs it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { HOLDING_BACK_ROWS, SUMMARIZED_ABOVE_TARGETS, type StatusJson } from '../../lib/cli/operations/status.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import type { AppKey } from '../../lib/pipeline/model.js';
import type { Store } from '../../lib/store/port.js';
import { lines } from './helpers.js';
import { runCli } from '../support/pipelinectl.js';

const NS = 'flux-system';
const FLEET = 300;
/** The clusters labelled `ring: canary`: exactly the threshold, so the canary pipeline keeps one row per target. */
const CANARY = SUMMARIZED_ABOVE_TARGETS;
const leaf = (index: number) => `leaf-${String(index).padStart(3, '0')}`;

const cluster = (name: string, labels: Record<string, string>) => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: ${NS}, labels: ${JSON.stringify(labels)}}
spec: {eks: {clusterName: ${name}, region: eu-west-1}}
`;

/** A Pipeline for the HelmRelease `app`: dev on the cluster `dev`, prod on every cluster the labels select. */
const selecting = (app: string, labels: Record<string, string>) => `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: ${app}, namespace: ${NS}}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: ${app}}
  environments:
    - name: dev
      targets: [{namespace: apps, clusterRef: {kind: GitopsCluster, name: dev}}]
    - name: prod
      targetSelector: {clusterSelector: {matchLabels: ${JSON.stringify(labels)}}, namespace: apps}
  promotion:
    strategy: {notification: {}}
`;

const CONFIGURATION = [
  cluster('dev', { tier: 'dev' }),
  ...Array.from({ length: FLEET }, (_, i) =>
    cluster(leaf(i), { tier: 'prod', ...(i < CANARY ? { ring: 'canary' } : {}) }),
  ),
  selecting('web', { tier: 'prod' }),
  selecting('api', { tier: 'prod' }),
  selecting('canary', { ring: 'canary' }),
].join('---\n');

const app = (name: string, clusterName: string): AppKey => ({
  cluster: { namespace: NS, name: clusterName },
  kind: 'HelmRelease',
  namespace: 'apps',
  name,
});
const ready = (revision: string): TargetStatus => ({
  revision,
  phase: 'Ready',
  reason: 'Deployed',
  message: `deployed ${revision}`,
});
const progressing = (revision: string): TargetStatus => ({
  revision,
  phase: 'Progressing',
  reason: 'Reconciling',
  message: 'Running upgrade',
});
const failed = (revision: string): TargetStatus => ({
  revision,
  phase: 'Failed',
  reason: 'ReconciliationFailed',
  message: 'Helm upgrade failed',
});

/** web's prod: rolling out 6.5.0, a few targets behind. */
const WEB_FAILED = [leaf(41), leaf(250)];
const WEB_PROGRESSING = [leaf(7), leaf(8), leaf(299)];
const WEB_STRAGGLER = leaf(120);
/** api's prod: more targets failed than the table shows. */
const API_FAILED = Array.from({ length: 20 }, (_, i) => leaf(100 + i * 5));

function webStatus(clusterName: string): TargetStatus {
  if (WEB_FAILED.includes(clusterName)) return failed('6.5.0');
  if (WEB_PROGRESSING.includes(clusterName)) return progressing('6.5.0');
  if (clusterName === WEB_STRAGGLER) return ready('6.4.0');
  return ready('6.5.0');
}

async function recordStatuses(store: Store): Promise<void> {
  const now = new Date();
  const writes: (() => Promise<unknown>)[] = [
    () => store.recordTargetStatus(app('web', 'dev'), ready('6.5.0'), now),
    () => store.recordTargetStatus(app('api', 'dev'), ready('2.0.0'), now),
  ];
  for (let i = 0; i < FLEET; i++) {
    const name = leaf(i);
    writes.push(() => store.recordTargetStatus(app('web', name), webStatus(name), now));
    const api = API_FAILED.includes(name) ? failed('2.0.0') : ready('2.0.0');
    writes.push(() => store.recordTargetStatus(app('api', name), api, now));
  }
  // A few at a time, as the verifier's batches would write them.
  for (let i = 0; i < writes.length; i += 16) await Promise.all(writes.slice(i, i + 16).map((write) => write()));
}

describe('status at fleet size: an environment selecting 300 clusters', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-fleet-'));
    dataDir = join(root, 'data');
    const backend = await openLocalBackend(dataDir);
    try {
      const applied = await applyConfiguration(backend, { source: { text: CONFIGURATION, file: 'fleet.yaml' } });
      assert.ok(applied.ok, applied.ok ? '' : applied.problems.join('\n'));
      await recordStatuses(backend.store);
    } finally {
      await backend.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('shows the environment as one summary row and the targets holding it back, in a screenful', async () => {
    const run = await cli('status', 'flux-system/web');
    assert.equal(run.code, 0, run.stderr);
    const out = lines(run.stdout);
    assert.ok(out.length <= 20, `${out.length} lines:\n${run.stdout}`);
    assert.ok(
      out.every((line) => line.length <= 120),
      run.stdout,
    );
    assert.match(out[0] ?? '', /^flux-system\/web +HelmRelease web +candidate 6\.5\.0$/);
    // A small environment keeps its row.
    assert.match(run.stdout, /^dev +flux-system\/dev +apps +6\.5\.0 +Ready +\d+s ago +source$/m);
    assert.match(
      run.stdout,
      /^prod +300 targets: 294 Ready on 6\.5\.0, 1 Ready on 6\.4\.0, 3 Progressing, 2 Failed +rolling out$/m,
    );
    // Exactly the targets holding prod back, the failed ones first, each once.
    const targetRows = out.filter((line) => /^ +flux-system\/leaf-\d{3} /.test(line));
    assert.deepEqual(
      targetRows.map((line) => /leaf-\d{3}/.exec(line)?.[0]),
      [...WEB_FAILED, ...WEB_PROGRESSING, WEB_STRAGGLER],
    );
    assert.match(run.stdout, /^ +flux-system\/leaf-041 +apps +6\.5\.0 +Failed +\d+s ago$/m);
    assert.match(run.stdout, /^ +flux-system\/leaf-120 +apps +6\.4\.0 +Ready +\d+s ago$/m);
    assert.doesNotMatch(run.stdout, /more holding/, 'nothing is left out below the cap');
    // The decision's explanation is still there.
    assert.match(run.stdout, /^ +waiting for all targets to run 6\.5\.0 and be healthy/m);
  });

  it('caps the targets holding an environment back, saying how many more there are', async () => {
    const run = await cli('status', 'flux-system/api');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^prod +300 targets: 280 Ready on 2\.0\.0, 20 Failed +\S.*$/m);
    const shown = lines(run.stdout)
      .filter((line) => /^ +flux-system\/leaf-\d{3} /.test(line))
      .map((line) => /leaf-\d{3}/.exec(line)?.[0]);
    assert.deepEqual(shown, API_FAILED.slice(0, HOLDING_BACK_ROWS));
    assert.match(
      run.stdout,
      new RegExp(`^ +… and ${API_FAILED.length - HOLDING_BACK_ROWS} more holding prod back \\(--all-targets`, 'm'),
    );
  });

  it('explain summarizes the environment the same way', async () => {
    const run = await cli('explain', 'flux-system/api', 'prod');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^ {2}300 targets: 280 Ready on 2\.0\.0, 20 Failed; holding it back:$/m);
    const shown = lines(run.stdout).filter((line) => /^ {2}target flux-system\/leaf-\d{3} /.test(line));
    assert.equal(shown.length, HOLDING_BACK_ROWS);
    assert.match(
      run.stdout,
      new RegExp(`^ {2}… and ${API_FAILED.length - HOLDING_BACK_ROWS} more holding it back`, 'm'),
    );
  });

  it('keeps one row per target in an environment of exactly the threshold', async () => {
    const run = await cli('status', 'flux-system/canary');
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /targets:/);
    const rows = lines(run.stdout).filter((line) => /flux-system\/leaf-\d{3} +apps +- +Unobserved +never/.test(line));
    assert.equal(rows.length, CANARY, run.stdout);
  });

  it('--all-targets prints every target', async () => {
    const run = await cli('status', 'flux-system/web', '--all-targets');
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /targets:/);
    const clusters = new Set(lines(run.stdout).flatMap((line) => /flux-system\/(leaf-\d{3}) /.exec(line)?.[1] ?? []));
    assert.equal(clusters.size, FLEET);
    assert.match(run.stdout, /^prod +flux-system\/leaf-000 +apps +6\.5\.0 +Ready +\d+s ago +rolling out$/m);
  });

  it('-o json and -o yaml list every target with its phase', async () => {
    const json = await cli('status', 'flux-system/web', '-o', 'json');
    assert.equal(json.code, 0, json.stderr);
    const yaml = await cli('status', 'flux-system/web', '-o', 'yaml');
    assert.equal(yaml.code, 0, yaml.stderr);
    for (const status of [JSON.parse(json.stdout) as StatusJson, parse(yaml.stdout) as StatusJson]) {
      const prod = status.pipelines[0]?.environments.find((env) => env.name === 'prod');
      assert.equal(prod?.targets.length, FLEET);
      assert.equal(prod?.state, 'in-progress');
      const byPhase = (phase: string) =>
        (prod?.targets ?? []).filter((target) => target.phase === phase).map((target) => target.cluster);
      assert.deepEqual(
        byPhase('Failed'),
        WEB_FAILED.map((name) => `${NS}/${name}`),
      );
      assert.equal(byPhase('Progressing').length, WEB_PROGRESSING.length);
      assert.equal(byPhase('Ready').length, FLEET - WEB_FAILED.length - WEB_PROGRESSING.length);
    }
  });

  it("--help states the table's threshold and cap as the table applies them", async () => {
    const run = await runCli(['status', '--help']);
    assert.equal(run.code, 0, run.stderr);
    const help = run.stdout.replace(/\s+/g, ' ');
    assert.match(help, new RegExp(`more than ${SUMMARIZED_ABOVE_TARGETS} targets is shown in short`));
    assert.match(help, new RegExp(`at most ${HOLDING_BACK_ROWS}\\)`));
    assert.match(help, /--all-targets/);
  });
});
