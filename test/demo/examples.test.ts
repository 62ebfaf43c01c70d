// examples/demo: the configuration `npm start` runs, as a user would write it, and the simulated world built from it.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadConfiguration, type Configuration } from '../../lib/config/index.js';
import { markersIn } from '../../lib/promotion/markers.js';
import { startDemoWorld } from '../../lib/demo/world.js';
import { planWorld } from '../../lib/demo/world-plan.js';
import { chartVersionIn } from '../../lib/testing/helm-release.js';
import { readTargetStatus } from '../../lib/flux/index.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/demo/', import.meta.url));

async function loadExample(): Promise<Configuration> {
  const result = await loadConfiguration(EXAMPLE);
  assert.ok(result.ok, result.ok ? '' : result.problems.map((p) => p.message).join('\n'));
  return result.configuration;
}

describe('examples/demo', () => {
  it('loads as a whole: the Pipeline, four GitopsClusters and their Secrets', async () => {
    const configuration = await loadExample();
    assert.deepEqual(
      configuration.pipelines.map((p) => [`${p.namespace}/${p.name}`, p.environments.map((e) => e.name)]),
      [['flux-system/podinfo', ['dev', 'staging', 'prod']]],
    );
    const [, staging, prod] = configuration.pipelines[0]?.environments ?? [];
    assert.equal(staging?.promotion?.manual, true);
    assert.equal(prod?.promotion?.manual, undefined);
    assert.deepEqual(
      prod?.targets.map((t) => t.cluster.name),
      ['prod-eu', 'prod-us'],
    );
    assert.deepEqual(
      configuration.clusters.map((c) => c.key.name),
      ['dev', 'staging', 'prod-eu', 'prod-us'],
    );
  });

  it('every YAML file in it loads on its own, given what the others define', async () => {
    const configuration = await loadExample();
    const known = {
      clusters: configuration.clusters.map((c) => c.key),
      secrets: configuration.secrets.map((s) => ({ ...s.key, keys: Object.keys(s.values) })),
    };
    const files = (await readdir(EXAMPLE)).filter((file) => /\.ya?ml$/.test(file)).sort();
    assert.deepEqual(files, ['clusters.yaml', 'pipeline.yaml', 'secrets.yaml']);
    for (const file of files) {
      const result = await loadConfiguration(join(EXAMPLE, file), { known });
      assert.ok(result.ok, `${file}: ${result.ok ? '' : result.problems.map((p) => p.message).join('; ')}`);
    }
  });

  it('plans one simulated cluster per GitopsCluster and one marked manifest per target', async () => {
    const plan = planWorld(await loadExample());
    assert.deepEqual(plan.repository, { owner: 'acme', name: 'fleet' });
    assert.deepEqual(
      plan.targets.map((t) => [t.env, t.cluster.name, t.namespace, t.file, t.marker]),
      [
        ['dev', 'dev', 'apps', 'clusters/dev/podinfo.yaml', undefined],
        ['staging', 'staging', 'apps', 'clusters/staging/podinfo.yaml', 'flux-system:podinfo:staging'],
        ['prod', 'prod-eu', 'apps', 'clusters/prod-eu/podinfo.yaml', 'flux-system:podinfo:prod'],
        ['prod', 'prod-us', 'apps', 'clusters/prod-us/podinfo.yaml', 'flux-system:podinfo:prod'],
      ],
    );
    assert.deepEqual(plan.sourceFiles.get('flux-system/podinfo'), ['clusters/dev/podinfo.yaml']);
    assert.deepEqual(plan.tokenSecrets, [{ namespace: 'flux-system', name: 'github' }]);
    assert.deepEqual(
      plan.clusters.map((c) => `${c.key.name} ${c.secret.name}`),
      ['dev dev-kubeconfig', 'staging staging-kubeconfig', 'prod-eu prod-eu-kubeconfig', 'prod-us prod-us-kubeconfig'],
    );
  });

  it('starts a world where every target runs 6.9.0 and the repository holds the markers', async (t) => {
    const world = await startDemoWorld(await loadExample(), '6.9.0');
    t.after(() => world.stop());
    const files = world.github.files('acme', 'fleet', 'main');
    assert.deepEqual(Object.keys(files).sort(), [
      'clusters/dev/podinfo.yaml',
      'clusters/prod-eu/podinfo.yaml',
      'clusters/prod-us/podinfo.yaml',
      'clusters/staging/podinfo.yaml',
    ]);
    for (const target of world.targets) {
      const text = files[target.file] ?? '';
      assert.equal(chartVersionIn(text), '6.9.0');
      assert.deepEqual(markersIn(text), target.env === 'dev' ? [] : [`flux-system:podinfo:${target.env}`]);
      const object = target.api.object('HelmRelease', target.namespace, target.name);
      assert.equal(object && readTargetStatus(object).revision, '6.9.0');
    }
    assert.deepEqual(
      world.secrets.map((s) => [s.key.name, Object.keys(s.values)]),
      [
        ['dev-kubeconfig', ['value']],
        ['staging-kubeconfig', ['value']],
        ['prod-eu-kubeconfig', ['value']],
        ['prod-us-kubeconfig', ['value']],
        ['github', ['token']],
      ],
    );
    assert.equal(world.secrets.at(-1)?.values.token, world.github.token);
  });

  it('refuses a configuration it cannot simulate, saying why', async () => {
    const configuration = await loadExample();
    const [pipeline] = configuration.pipelines;
    assert.ok(pipeline);
    const changed: Configuration = {
      ...configuration,
      pipelines: [{ ...pipeline, appRef: { ...pipeline.appRef, kind: 'Kustomization' } }],
    };
    assert.throws(() => planWorld(changed), /Pipeline flux-system\/podinfo: only HelmRelease apps can be simulated/);
  });
});
