// `apply` checks what the store can hold before it writes anything, in a dry run as in the real run, so the two
// agree (docs/configuration.md, "Validation"): a pipeline too large for one item, a document nested deeper or
// holding a number the store cannot keep. Each is refused with the file, the document and the field, and nothing
// is written.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { ConfigError, formatProblem } from '../../lib/config/problems.js';
import { applyLocalConfiguration } from '../../lib/local/configuration.js';
import { tempFiles } from '../support/temp-files.js';
import { applyWorld, CLUSTER_YAML, namespaces, pipelineYaml, type ApplyWorld } from './apply-world.js';

describe('apply and the limits of the store', { concurrency: false }, () => {
  let world: ApplyWorld;
  before(async () => {
    world = await applyWorld('data directory');
  });
  after(() => world.stop());

  const apply = (dir: string, dryRun: boolean) =>
    applyConfiguration(world.backend, { source: { paths: [dir] }, dryRun });

  it('a pipeline with 10,000 targets fails --dry-run with the size, and the real run writes nothing', async (t) => {
    const dir = await tempFiles(t, {
      'cluster.yaml': CLUSTER_YAML,
      'pipeline.yaml': pipelineYaml('huge', { dev: namespaces('dev', 5_000), prod: namespaces('prod', 5_000) }),
    });
    const expected =
      /^.*pipeline\.yaml:6:3: Pipeline flux-system\/huge: spec\.environments: 10,000 targets make the stored pipeline (\d+\.\d) MB; the store holds at most 396 KB per pipeline \(about ([\d,]+) targets like these\)$/;

    const dry = await apply(dir, true);
    assert.equal(dry.ok, false, 'the dry run refuses it');
    const problems = dry.ok ? [] : dry.problems;
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0] ?? '', expected);

    world.dynamo.resetCounts();
    const real = await apply(dir, false);
    assert.deepEqual(real, dry, 'the real run says the same');
    assert.equal(world.dynamo.writes(), 0, 'and writes nothing');
    assert.deepEqual(await world.items(), []);
  });

  it('serve checks its configuration directory the same way at start, and writes nothing', async (t) => {
    const dir = await tempFiles(t, {
      'config/cluster.yaml': CLUSTER_YAML,
      'config/pipeline.yaml': pipelineYaml('huge', { dev: namespaces('dev', 5_000), prod: namespaces('prod', 5_000) }),
    });
    world.dynamo.resetCounts();
    const failure = await applyLocalConfiguration({
      configDir: join(dir, 'config'),
      dataDir: join(dir, 'data'),
      store: world.backend.store,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      now: () => new Date(),
    }).catch((error: unknown) => error);
    assert.ok(failure instanceof ConfigError);
    const dry = await apply(join(dir, 'config'), true);
    assert.ok(!dry.ok);
    assert.deepEqual(failure.problems.map(formatProblem), dry.problems, 'the same problem as apply reports');
    assert.equal(failure.problems.length, 1);
    assert.equal(world.dynamo.writes(), 0);
  });

  it('the estimate holds: the pipeline with as many targets as the message says fits, with one more batch it does not', async (t) => {
    const probe = await tempFiles(t, {
      'cluster.yaml': CLUSTER_YAML,
      'pipeline.yaml': pipelineYaml('huge', { dev: namespaces('dev', 5_000), prod: namespaces('prod', 5_000) }),
    });
    const refused = await apply(probe, true);
    const fit = Number(
      /about ([\d,]+) targets/.exec(refused.ok ? '' : (refused.problems[0] ?? ''))?.[1]?.replace(/,/g, ''),
    );
    assert.ok(fit > 1000, `about ${fit} targets`);

    const half = Math.floor(fit / 2);
    const fits = await tempFiles(t, {
      'cluster.yaml': CLUSTER_YAML,
      'pipeline.yaml': pipelineYaml('huge', { dev: namespaces('dev', half), prod: namespaces('prod', fit - half) }),
    });
    assert.equal((await apply(fits, true)).ok, true, `${fit} targets fit`);
    const over = await tempFiles(t, {
      'cluster.yaml': CLUSTER_YAML,
      'pipeline.yaml': pipelineYaml('huge', {
        dev: namespaces('dev', half),
        prod: namespaces('prod', fit - half + 50),
      }),
    });
    assert.equal((await apply(over, true)).ok, false, `${fit + 50} targets do not`);
  });

  it('a document nested deeper than the store holds: refused by the dry run and the real run alike', async (t) => {
    const nested = `${'{a: '.repeat(40)}x${'}'.repeat(40)}`;
    const dir = await tempFiles(t, {
      'cluster.yaml': CLUSTER_YAML.replace(
        'metadata: {name: prod, namespace: flux-system}',
        `metadata: {name: prod, namespace: flux-system, deep: ${nested}}`,
      ),
    });
    for (const dryRun of [true, false]) {
      const result = await apply(dir, dryRun);
      assert.deepEqual(result.ok ? [] : result.problems.map((line) => line.replace(`${dir}/`, '')), [
        'cluster.yaml:3:171: GitopsCluster flux-system/prod: metadata.deep.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: nests more than 31 levels of mappings and lists inside the document; the store holds no deeper',
      ]);
    }
    assert.deepEqual(await world.items(), []);
  });

  it('a number the store cannot keep exactly (1e30 in metadata): refused by the dry run and the real run alike', async (t) => {
    const dir = await tempFiles(t, {
      'cluster.yaml': CLUSTER_YAML.replace(
        'metadata: {name: prod, namespace: flux-system}',
        'metadata: {name: prod, namespace: flux-system, size: 1e30}',
      ),
    });
    for (const dryRun of [true, false]) {
      const result = await apply(dir, dryRun);
      assert.deepEqual(result.ok ? [] : result.problems.map((line) => line.replace(`${dir}/`, '')), [
        'cluster.yaml:3:48: GitopsCluster flux-system/prod: metadata.size: the number 1e+30 cannot be stored as a number: quote it to keep it as text',
      ]);
    }
    assert.deepEqual(await world.items(), []);
  });
});
