// examples/demo (the configuration `npm start` runs) and examples/demo-gitlab (`pipelinectl demo --git-host gitlab`),
// as a user would write them, with the files their simulated repositories start with (examples/demo-fleet and
// examples/demo-gitlab-fleet: the folder their ConfigSource applies the Pipeline from), and the simulated worlds
// built from them.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { loadConfiguration, type Configuration } from '../../lib/config/index.js';
import { markersIn } from '../../lib/promotion/markers.js';
import { readRepositoryFiles } from '../../lib/demo/repository-files.js';
import { withSourceDocuments } from '../../lib/demo/source-documents.js';
import { startDemoWorld } from '../../lib/demo/world.js';
import { fleetPath, planWorld } from '../../lib/demo/world-plan.js';
import { objectKeyString } from '../../lib/pipeline/model.js';
import { chartVersionIn } from '../../lib/testing/helm-release.js';
import { readTargetStatus } from '../../lib/flux/index.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/demo/', import.meta.url));
const GITLAB_EXAMPLE = fileURLToPath(new URL('../../examples/demo-gitlab/', import.meta.url));
const FLEET = fileURLToPath(new URL('../../examples/demo-fleet/', import.meta.url));
const GITLAB_FLEET = fileURLToPath(new URL('../../examples/demo-gitlab-fleet/', import.meta.url));

async function loadExample(directory = EXAMPLE): Promise<Configuration> {
  const result = await loadConfiguration(directory);
  assert.ok(result.ok, result.ok ? '' : result.problems.map((p) => p.message).join('\n'));
  return result.configuration;
}

/**
 * The example as one configuration, the Pipeline its ConfigSource applies from the repository's files included and
 * the source left out: a configuration of one's own with no ConfigSource, as `pipelinectl demo --config` takes it.
 */
async function loadExampleWithPipeline(directory = EXAMPLE, fleet = FLEET): Promise<Configuration> {
  const sourced = withSourceDocuments(await loadExample(directory), await readRepositoryFiles(fleet));
  assert.deepEqual(sourced.problems, []);
  return { ...sourced.configuration, configSources: [] };
}

describe('examples/demo', () => {
  it('loads as a whole: four GitopsClusters, their Secrets and the ConfigSource that applies the Pipeline', async () => {
    const own = await loadExample();
    assert.deepEqual(own.pipelines, [], 'the Pipeline lives in the repository');
    assert.deepEqual(
      own.configSources.map((s) => [objectKeyString(s.key), s.document.spec]),
      [
        [
          'flux-system/fleet',
          {
            url: 'https://github.com/acme/fleet',
            branch: 'main',
            path: 'pipelines',
            secretRef: { name: 'fleet-config' },
          },
        ],
      ],
    );
    const configuration = await loadExampleWithPipeline();
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
    assert.deepEqual(files, ['clusters.yaml', 'config-source.yaml', 'secrets.yaml']);
    for (const file of files) {
      const result = await loadConfiguration(join(EXAMPLE, file), { known });
      assert.ok(result.ok, `${file}: ${result.ok ? '' : result.problems.map((p) => p.message).join('; ')}`);
    }
  });

  it("plans the repository with the source's folder, one simulated cluster per GitopsCluster and one marked manifest per target", async () => {
    const fleet = await readRepositoryFiles(FLEET);
    assert.deepEqual(Object.keys(fleet), ['pipelines/podinfo.yaml']);
    const plan = planWorld(await loadExample(), fleet);
    assert.deepEqual(plan.repositoryFiles, fleet);
    assert.deepEqual(plan.pipelines, [{ namespace: 'flux-system', name: 'podinfo' }]);
    assert.deepEqual(plan.configSources, [{ namespace: 'flux-system', name: 'fleet' }]);
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
    assert.deepEqual(plan.tokenSecrets, [
      { namespace: 'flux-system', name: 'github' },
      { namespace: 'flux-system', name: 'fleet-config' },
    ]);
    assert.deepEqual(
      plan.clusters.map((c) => `${c.key.name} ${c.secret.name}`),
      ['dev dev-kubeconfig', 'staging staging-kubeconfig', 'prod-eu prod-eu-kubeconfig', 'prod-us prod-us-kubeconfig'],
    );
  });

  it('starts a world where every target runs 6.9.0 and the repository holds the Pipeline and the markers', async (t) => {
    const world = await startDemoWorld(await loadExample(), '6.9.0', await readRepositoryFiles(FLEET));
    t.after(() => world.stop());
    assert.equal(world.repository.type, 'github');
    assert.equal(world.repository.path, 'acme/fleet');
    const files = world.repository.files('main');
    assert.deepEqual(Object.keys(files).sort(), [
      'clusters/dev/podinfo.yaml',
      'clusters/prod-eu/podinfo.yaml',
      'clusters/prod-us/podinfo.yaml',
      'clusters/staging/podinfo.yaml',
      'pipelines/podinfo.yaml',
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
        ['fleet-config', ['token']],
      ],
    );
    assert.equal(world.secrets.at(-2)?.values.token, world.repository.token);
    assert.equal(world.secrets.at(-1)?.values.token, world.repository.token);
    assert.deepEqual(world.hostApi, { githubApiUrl: world.repository.apiUrl });
  });

  it("refuses a ConfigSource whose folder the repository's files lack, or that reads another repository", async () => {
    const configuration = await loadExample();
    assert.throws(
      () => planWorld(configuration),
      /^DemoConfigurationError: ConfigSource flux-system\/fleet: the simulated repository holds no \.yaml or \.yml file under path pipelines: give the files it starts with \(--repository\)$/,
    );
    const [source] = configuration.configSources;
    assert.ok(source);
    const elsewhere: Configuration = {
      ...configuration,
      configSources: [
        {
          ...source,
          document: { ...source.document, spec: { ...source.document.spec, url: 'https://github.com/acme/other' } },
        },
      ],
    };
    const fleet = await readRepositoryFiles(FLEET);
    assert.throws(
      () => planWorld(elsewhere, fleet),
      /ConfigSource flux-system\/fleet: reads https:\/\/github\.com\/acme\/other, but the demo simulates only acme\/fleet/,
    );
  });

  it('refuses a configuration it cannot simulate, saying why', async () => {
    const configuration = await loadExampleWithPipeline();
    const [pipeline] = configuration.pipelines;
    assert.ok(pipeline);
    const changed: Configuration = {
      ...configuration,
      pipelines: [{ ...pipeline, appRef: { ...pipeline.appRef, kind: 'Kustomization' } }],
    };
    assert.throws(() => planWorld(changed), /Pipeline flux-system\/podinfo: only HelmRelease apps can be simulated/);
  });

  it('refuses promotions through a host it does not simulate, or into two repositories', async () => {
    const configuration = await loadExampleWithPipeline();
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
    const github = await loadExampleWithPipeline();
    const gitlab = await loadExampleWithPipeline(GITLAB_EXAMPLE, GITLAB_FLEET);
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
    const sources = async (directory: string) =>
      (await loadExample(directory)).configSources.map(({ document }) => document);
    assert.deepEqual(
      await sources(GITLAB_EXAMPLE),
      (await sources(EXAMPLE)).map((source) => ({
        ...source,
        spec: { ...source.spec, url: 'https://gitlab.com/acme/fleet' },
      })),
    );
  });

  it('plans the GitLab project acme/fleet, with the same targets and markers', async () => {
    const plan = planWorld(await loadExample(GITLAB_EXAMPLE), await readRepositoryFiles(GITLAB_FLEET));
    assert.equal(plan.repository.type, 'gitlab');
    assert.equal(fleetPath(plan.repository), 'acme/fleet');
    assert.deepEqual(plan.tokenSecrets, [
      { namespace: 'flux-system', name: 'gitlab' },
      { namespace: 'flux-system', name: 'fleet-config' },
    ]);
    const github = planWorld(await loadExample(), await readRepositoryFiles(FLEET));
    assert.deepEqual(plan.targets, github.targets);
  });

  it('starts a world on a simulated GitLab whose project holds the marked manifests', async (t) => {
    const world = await startDemoWorld(
      await loadExample(GITLAB_EXAMPLE),
      '6.9.0',
      await readRepositoryFiles(GITLAB_FLEET),
    );
    t.after(() => world.stop());
    const { repository } = world;
    assert.deepEqual(
      [repository.type, repository.hostName, repository.pullRequestWord],
      ['gitlab', 'GitLab', 'merge request'],
    );
    assert.match(repository.apiUrl, /^http:\/\/127\.0\.0\.1:\d+\/api\/v4$/);
    assert.deepEqual(world.hostApi, { gitlabApiUrl: repository.apiUrl });
    const files = repository.files('main');
    assert.equal(Object.keys(files).length, 5);
    assert.ok(files['pipelines/podinfo.yaml']?.includes('kind: Pipeline'));
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
    const configuration = await loadExampleWithPipeline(GITLAB_EXAMPLE, GITLAB_FLEET);
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
