// examples/demo (the configuration `npm start` runs) and examples/demo-gitlab (`pipelinectl demo --git-host gitlab`),
// as a user would write them, and the simulated worlds built from them.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadConfiguration, type Configuration } from '../../lib/config/index.js';
import { markersIn } from '../../lib/promotion/markers.js';
import { startDemoWorld } from '../../lib/demo/world.js';
import { fleetPath, planWorld } from '../../lib/demo/world-plan.js';
import { chartVersionIn } from '../../lib/testing/helm-release.js';
import { readTargetStatus } from '../../lib/flux/index.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/demo/', import.meta.url));
const GITLAB_EXAMPLE = fileURLToPath(new URL('../../examples/demo-gitlab/', import.meta.url));

async function loadExample(directory = EXAMPLE): Promise<Configuration> {
  const result = await loadConfiguration(directory);
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
    assert.equal(plan.repository.type, 'github');
    assert.equal(fleetPath(plan.repository), 'acme/fleet');
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
    assert.equal(world.repository.type, 'github');
    assert.equal(world.repository.path, 'acme/fleet');
    const files = world.repository.files('main');
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
    assert.equal(world.secrets.at(-1)?.values.token, world.repository.token);
    assert.deepEqual(world.hostApi, { githubApiUrl: world.repository.apiUrl });
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

  it('refuses promotions through a host it does not simulate, or into two repositories', async () => {
    const configuration = await loadExample();
    const [pipeline] = configuration.pipelines;
    const prod = pipeline?.environments[2];
    const pullRequest = prod?.promotion?.strategy['pull-request'];
    assert.ok(pipeline && prod && pullRequest);
    const withProd = (strategy: typeof pullRequest): Configuration => ({
      ...configuration,
      pipelines: [
        {
          ...pipeline,
          environments: pipeline.environments.map((env) =>
            env === prod ? { ...env, promotion: { strategy: { 'pull-request': strategy } } } : env,
          ),
        },
      ],
    });
    assert.throws(
      () =>
        planWorld(
          withProd({
            ...pullRequest,
            type: 'bitbucket-server',
            url: 'https://bitbucket.example.com/scm/ACME/fleet.git',
          }),
        ),
      /environment prod must be promoted by a GitHub pull request or a GitLab merge request to be simulated/,
    );
    assert.throws(
      () => planWorld(withProd({ ...pullRequest, type: 'gitlab', url: 'https://gitlab.com/acme/fleet' })),
      /the promotions go to several repositories \(acme\/fleet on GitHub, acme\/fleet on GitLab\); the demo simulates one/,
    );
  });
});

describe('examples/demo-gitlab', () => {
  it('is examples/demo promoted through GitLab merge requests: only the pull-request blocks and the token differ', async () => {
    const github = await loadExample();
    const gitlab = await loadExample(GITLAB_EXAMPLE);
    const strategies = (configuration: Configuration) =>
      configuration.pipelines.flatMap((pipeline) =>
        pipeline.environments.map((env) => env.promotion?.strategy['pull-request']),
      );
    // Every environment's (the first inherits the Pipeline's, unused: nothing promotes into it).
    const expected = ['gitlab', 'https://gitlab.com/acme/fleet', 'main', 'gitlab'];
    assert.deepEqual(
      strategies(gitlab).map((s) => s && [s.type, s.url, s.baseBranch, s.secretRef.name]),
      [expected, expected, expected],
    );
    // Everything else, as examples/demo has it.
    const withoutPullRequests = (configuration: Configuration) =>
      configuration.pipelines.map((pipeline) => ({
        ...pipeline,
        promotion: undefined,
        environments: pipeline.environments.map((env) => ({
          ...env,
          promotion: env.promotion && { ...env.promotion, strategy: {} },
        })),
      }));
    assert.deepEqual(withoutPullRequests(gitlab), withoutPullRequests(github));
    assert.deepEqual(
      gitlab.clusters.map((c) => c.document),
      github.clusters.map((c) => c.document),
    );
    assert.deepEqual(
      gitlab.secrets.map((s) => `${s.key.name}: ${Object.keys(s.values).join(',')}`),
      github.secrets.map(
        (s) => `${s.key.name === 'github' ? 'gitlab' : s.key.name}: ${Object.keys(s.values).join(',')}`,
      ),
    );
  });

  it('plans the GitLab project acme/fleet, with the same targets and markers', async () => {
    const plan = planWorld(await loadExample(GITLAB_EXAMPLE));
    assert.equal(plan.repository.type, 'gitlab');
    assert.equal(fleetPath(plan.repository), 'acme/fleet');
    assert.deepEqual(plan.tokenSecrets, [{ namespace: 'flux-system', name: 'gitlab' }]);
    const github = planWorld(await loadExample());
    assert.deepEqual(plan.targets, github.targets);
  });

  it('starts a world on a simulated GitLab whose project holds the marked manifests', async (t) => {
    const world = await startDemoWorld(await loadExample(GITLAB_EXAMPLE), '6.9.0');
    t.after(() => world.stop());
    const { repository } = world;
    assert.deepEqual(
      [repository.type, repository.hostName, repository.pullRequestWord],
      ['gitlab', 'GitLab', 'merge request'],
    );
    assert.match(repository.apiUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/v4$/);
    assert.deepEqual(world.hostApi, { gitlabApiUrl: repository.apiUrl });
    const files = repository.files('main');
    assert.equal(Object.keys(files).length, 4);
    for (const target of world.targets) {
      const text = files[target.file] ?? '';
      assert.equal(chartVersionIn(text), '6.9.0');
      assert.deepEqual(markersIn(text), target.env === 'dev' ? [] : [`flux-system:podinfo:${target.env}`]);
    }
    const token = world.secrets.find((s) => s.key.name === 'gitlab');
    assert.deepEqual(token?.values, { token: repository.token });
    // The token is one the simulated GitLab accepts.
    const response = await fetch(`${repository.apiUrl}/projects/acme%2Ffleet`, {
      headers: { 'private-token': repository.token },
    });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { path_with_namespace?: string }).path_with_namespace, 'acme/fleet');
  });

  it('simulates a project in subgroups', async (t) => {
    const configuration = await loadExample(GITLAB_EXAMPLE);
    const url = 'https://gitlab.example.com/platform/teams/fleet';
    const changed: Configuration = {
      ...configuration,
      pipelines: configuration.pipelines.map((pipeline) => ({
        ...pipeline,
        environments: pipeline.environments.map((env) => {
          const pullRequest = env.promotion?.strategy['pull-request'];
          return env.promotion && pullRequest
            ? { ...env, promotion: { ...env.promotion, strategy: { 'pull-request': { ...pullRequest, url } } } }
            : env;
        }),
      })),
    };
    const world = await startDemoWorld(changed, '6.9.0');
    t.after(() => world.stop());
    assert.equal(world.repository.path, 'platform/teams/fleet');
    assert.equal(chartVersionIn(world.repository.readFile('main', 'clusters/prod-us/podinfo.yaml') ?? ''), '6.9.0');
  });
});
