// A pipeline's targets chosen by cluster labels are stored with its definition, one item, so a selection has the
// store's item limit (docs/configuration.md, "Targets chosen by cluster labels"; docs/cli.md, "apply"). Applying clusters that would
// make a stored pipeline select more than that is refused up front, naming the pipeline, its selector and the limit,
// by `--dry-run` and the real run alike, and nothing is written; the fleet is not wedged by it: a cluster that fits
// applies, and a store that already holds too large a selection gives the same clear problem, never DynamoDB's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { deleteObject } from '../../lib/apply/delete.js';
import type { Backend } from '../../lib/cli/backend.js';
import type { GitopsClusterDocument } from '../../lib/config/schema.js';
import type { ObjectKey } from '../../lib/pipeline/model.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { applyWorld, type ApplyWorld } from './apply-world.js';

const NS = 'flux-system';
const WEB: ObjectKey = { namespace: NS, name: 'web' };
/** As many clusters as the fleet: more than one item can list (about 5,400 with these names). */
const FLEET = 10_000;

const cluster = (name: string, tier = 'prod') => `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: ${name}, namespace: ${NS}, labels: {tier: ${tier}}}
spec: {eks: {clusterName: ${name.slice(0, 10)}, region: eu-west-1}}
`;

const SELECTING = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: web, namespace: ${NS}}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: web}
  environments:
    - name: dev
      targets:
        - {namespace: web, clusterRef: {kind: GitopsCluster, name: dev}}
    - name: prod
      targetSelector:
        clusterSelector: {matchLabels: {tier: prod}}
        namespace: web
`;

const prodName = (i: number) => `prod-${String(i).padStart(5, '0')}`;
const fleetYaml = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => cluster(prodName(from + i))).join('---\n');

/** The problem a too-large selection gives: the pipeline, its selector, what it would select and the limit. */
const TOO_MANY =
  /^Pipeline flux-system\/web \(stored\): spec\.environments\[1\]\.targetSelector: selects ([\d,]+) GitopsClusters: ([\d,]+) targets make the stored pipeline [\d.]+ [KM]B; the store holds at most 396 KB per pipeline \(about ([\d,]+) targets like these\): narrow the selector or split the pipeline$/;

describe('a selection larger than the store holds', { concurrency: false }, () => {
  let world: ApplyWorld;
  before(async () => {
    world = await applyWorld('data directory');
  });
  after(() => world.stop());

  const apply = (text: string, dryRun = false) =>
    applyConfiguration(world.backend, { source: { text, file: 'fleet.yaml' }, dryRun });
  const prodTargets = async () =>
    (await world.backend.store.getPipeline(WEB))?.pipeline.environments
      .find((env) => env.name === 'prod')
      ?.targets.map((target) => target.cluster.name);
  const sorted = (items: Record<string, unknown>[]) =>
    items
      .map((item) => JSON.stringify(item, (_, value: unknown) => (value instanceof Set ? [...value] : value)))
      .sort();

  it(`${FLEET.toLocaleString('en-US')} matching clusters in one apply: refused by --dry-run and the real run alike, nothing written; one cluster then applies`, async (t) => {
    const setup = await apply(`${cluster('dev', 'dev')}---\n${SELECTING}`);
    assert.ok(setup.ok, setup.ok ? '' : setup.problems.join('\n'));
    const before = sorted(await world.items());

    const fleet = fleetYaml(0, FLEET);
    const started = Date.now();
    const dry = await apply(fleet, true);
    const dryMs = Date.now() - started;
    assert.equal(dry.ok, false, 'the dry run refuses it');
    const problems = dry.ok ? [] : dry.problems;
    assert.equal(problems.length, 1, problems.join('\n'));
    const [, selects, targets, fit] = TOO_MANY.exec(problems[0] ?? '') ?? [];
    assert.equal(selects, '10,000', problems[0]);
    assert.equal(targets, '10,001');
    const fits = Number(fit?.replace(/,/g, ''));
    assert.ok(fits > 1_000 && fits < FLEET, `about ${fit} targets fit`);

    world.dynamo.resetCounts();
    const real = await apply(fleet, false);
    assert.deepEqual(real, dry, 'the real run finds what the dry run found');
    assert.equal(world.dynamo.writes(), 0, 'and writes nothing');
    assert.deepEqual(sorted(await world.items()), before, 'the store is as it was');
    t.diagnostic(`${FLEET} clusters refused: the dry run took ${dryMs} ms`);

    const one = await apply(cluster(prodName(0)));
    assert.ok(one.ok, one.ok ? '' : one.problems.join('\n'));
    assert.deepEqual(one.lines, [
      'gitopscluster flux-system/prod-00000 created',
      'pipeline flux-system/web configured (targets selected by cluster labels: 1 joined, 0 left)',
    ]);
    assert.deepEqual(await prodTargets(), ['prod-00000']);
  });

  it('a store already holding more matching clusters than a pipeline can list: one more cluster, or deleting one, is refused clearly and writes nothing; narrowing the selector mends it', async () => {
    // The state an earlier version's apply left when it had stored the clusters and then failed to store the
    // pipeline's selection: the clusters stored, the selection not. Long cluster names make fewer of them too many.
    const edge = (i: number) => `edge-${String(i).padStart(5, '0')}-${'x'.repeat(240)}`;
    const edgeCluster = (i: number) => cluster(edge(i), 'edge');
    const selecting = (labels: string) =>
      SELECTING.replace('name: web, namespace', 'name: api, namespace')
        .replace('name: web}', 'name: api}')
        .replace('{matchLabels: {tier: prod}}', `{matchLabels: ${labels}}`);
    const setup = await apply(selecting('{tier: edge}'));
    assert.ok(setup.ok, setup.ok ? '' : setup.problems.join('\n'));
    const EDGE = 2_000;
    const documents = parseAllDocuments(Array.from({ length: EDGE }, (_, i) => edgeCluster(i)).join('---\n')).map(
      (doc) => doc.toJSON() as GitopsClusterDocument,
    );
    for (let i = 0; i < documents.length; i += 50) {
      await Promise.all(
        documents.slice(i, i + 50).map((document) => world.backend.store.applyCluster(document, new Date())),
      );
    }
    const before = sorted(await world.items());
    const tooMany = (selects: string, document = 'Pipeline flux-system/api \\(stored\\)') =>
      new RegExp(
        `${document}: spec\\.environments\\[1\\]\\.targetSelector: selects ${selects} ` +
          'GitopsClusters: [\\d,]+ targets make the stored pipeline [\\d.]+ [KM]B; the store holds at most 396 KB per ' +
          'pipeline \\(about [\\d,]+ targets like these\\): narrow the selector or split the pipeline',
      );

    world.dynamo.resetCounts();
    const dry = await apply(edgeCluster(EDGE), true);
    const real = await apply(edgeCluster(EDGE), false);
    assert.deepEqual(real, dry, 'the real run finds what the dry run found');
    const problems = real.ok ? [] : real.problems;
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0] ?? '', tooMany('2,001'));

    const deleted = await deleteObject(world.backend, 'gitopscluster', { namespace: NS, name: edge(0) }).catch(
      (error: unknown) => error,
    );
    assert.ok(deleted instanceof Error, 'deleting one cluster is refused too');
    assert.match(deleted.message, tooMany('1,999'));
    assert.match(deleted.message, /; nothing was deleted$/);
    assert.equal(world.dynamo.writes(), 0, 'and nothing is written');
    assert.deepEqual(sorted(await world.items()), before);

    // Applying the pipeline as it is gives the same problem, at its own document; the way out the problem names is
    // a narrower selector.
    const again = await apply(selecting('{tier: edge}'));
    assert.match(
      again.ok ? '' : (again.problems[0] ?? ''),
      tooMany('2,000', 'fleet.yaml:\\d+:\\d+: Pipeline flux-system/api'),
    );
    const narrowed = await apply(selecting('{tier: edge, shard: "0"}'));
    assert.ok(narrowed.ok, narrowed.ok ? '' : narrowed.problems.join('\n'));
    const one = await apply(edgeCluster(EDGE));
    assert.ok(one.ok, one.ok ? '' : one.problems.join('\n'));
    assert.deepEqual(one.lines, [`gitopscluster flux-system/${edge(EDGE)} created`]);
  });

  it('on the in-memory store (tests, the demo): the same problem, and nothing is stored', async () => {
    const store = new MemoryStore();
    const memory: Backend = {
      ...world.backend,
      description: 'the in-memory store',
      store,
      enqueue: () => Promise.resolve(true),
    };
    const applyTo = (text: string, dryRun = false) =>
      applyConfiguration(memory, { source: { text, file: 'fleet.yaml' }, dryRun });
    const setup = await applyTo(`${cluster('dev', 'dev')}---\n${SELECTING}`);
    assert.ok(setup.ok, setup.ok ? '' : setup.problems.join('\n'));
    store.counts.writes = 0;

    const fleet = fleetYaml(0, FLEET);
    const dry = await applyTo(fleet, true);
    const real = await applyTo(fleet, false);
    assert.deepEqual(real, dry);
    const [, selects] = TOO_MANY.exec(real.ok ? '' : (real.problems[0] ?? '')) ?? [];
    assert.equal(selects, '10,000');
    assert.equal(store.counts.writes, 0);
    assert.equal((await store.listClusters()).items.length, 1);
  });
});
