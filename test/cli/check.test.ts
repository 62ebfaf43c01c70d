// pipelinectl check as a user runs it: on a local data directory with `serve` running (its Git API URL taken from
// serve.json), against leaf clusters that are fake Kubernetes API servers and a fleet repository on a fake GitHub;
// and once on the AWS backend (Secrets in Secrets Manager, read with the caller's credentials). One pipeline is
// healthy; each other one has exactly one broken part, and its check fails with the row that names it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import type { CheckRow } from '../../lib/check/index.js';
import { applyConfiguration } from '../../lib/apply/apply.js';
import { checkFailure, runChecks, type CheckReport } from '../../lib/cli/operations/check.js';
import { openAwsBackend } from '../../lib/cli/backends/aws.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { CliError } from '../../lib/cli/errors.js';
import { clusterWithKubeconfigYaml, pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { installedHelmRelease } from '../../lib/testing/helm-release.js';
import { startAwsStandIn, type AwsStandIn } from '../support/aws-stand-in.js';
import { startDynalite, type LocalDynamo } from '../support/dynalite.js';
import { writeFiles } from '../support/temp-files.js';
import { startServe } from '../local/serve-process.js';
import { lines } from './helpers.js';
import { runCli, type CliRun } from '../support/pipelinectl.js';

const NAMESPACE = 'flux-system';
const REPOSITORY_URL = 'https://github.com/acme/fleet';
const READ_ONLY_TOKEN = 'ghp_read_only_token_of_the_test';
const REJECTED_TOKEN = 'ghp_token_github_does_not_know';

/** Each pipeline but `healthy` has one broken part. */
const PIPELINES = ['healthy', 'no-marker', 'bad-token', 'read-only', 'unreachable', 'no-app'] as const;
type PipelineName = (typeof PIPELINES)[number];
/** The Secret each pipeline's pull requests use. */
const SECRET_OF: Record<PipelineName, string> = {
  healthy: 'github',
  'no-marker': 'github',
  'bad-token': 'github-rejected',
  'read-only': 'github-read-only',
  unreachable: 'github',
  'no-app': 'github',
};

/** The fleet's manifests: every pipeline's prod marker, except `no-marker`'s. */
function fleetFiles(): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# fleet\n' };
  for (const name of PIPELINES) {
    if (name === 'no-marker') continue;
    files[`apps/${name}/release.yaml`] =
      `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: ${name}, namespace: prod}\n` +
      `spec:\n  chart:\n    spec:\n      version: "1.0.0" # {"$promotion": "${NAMESPACE}:${name}:prod"}\n`;
  }
  return files;
}

/** Pipeline `name`: HelmRelease `name` in namespaces dev and prod of `cluster`, prod promoted by pull request. */
function pipelineOf(name: PipelineName, cluster: string): string {
  return pipelineYaml({
    name,
    environments: ['dev', 'prod'].map((env) => ({ name: env, targets: [{ namespace: env, cluster }] })),
    strategy: { url: REPOSITORY_URL, tokenSecret: SECRET_OF[name] },
  });
}

/** The fleet cluster runs every app but `no-app`'s (and `unreachable`'s, which run on the cluster that is down). */
function releasesOn(names: readonly string[]): object[] {
  return names.flatMap((name) =>
    ['dev', 'prod'].map((namespace) => installedHelmRelease({ namespace, name }, '1.0.0')),
  );
}

interface World {
  fleet: FakeKubeApi;
  down: FakeKubeApi;
  github: FakeGitHub;
  /** The configuration, every document in one YAML stream. */
  configuration: string;
  stop(): Promise<void>;
}

async function startWorld(): Promise<World> {
  const fleet = await FakeKubeApi.start({ objects: releasesOn(['healthy', 'no-marker', 'bad-token', 'read-only']) });
  const down = await FakeKubeApi.start({ objects: releasesOn(['unreachable']) });
  const github = await FakeGitHub.start();
  github.createRepository('acme', 'fleet', fleetFiles());
  github.addToken(READ_ONLY_TOKEN, { readOnly: true });
  const configuration = yamlDocuments(
    clusterWithKubeconfigYaml('fleet', fleet.kubeconfig(), NAMESPACE),
    clusterWithKubeconfigYaml('down', down.kubeconfig(), NAMESPACE),
    secretYaml('github', { token: github.token }),
    secretYaml('github-rejected', { token: REJECTED_TOKEN }),
    secretYaml('github-read-only', { token: READ_ONLY_TOKEN }),
    ...PIPELINES.map((name) => pipelineOf(name, name === 'unreachable' ? 'down' : 'fleet')),
  );
  // The cluster goes down after its kubeconfig was written: it is registered, and does not answer.
  down.offline();
  return {
    fleet,
    down,
    github,
    configuration,
    stop: async () => {
      await Promise.all([fleet.stop(), down.stop(), github.stop()]);
    },
  };
}

/** The rows of a pipeline that did not pass, as `kind outcome reason`. */
const notOk = (rows: readonly CheckRow[]) =>
  rows
    .filter((row) => row.outcome !== 'ok')
    .map((row) => `${row.environment} ${row.kind} ${row.outcome} ${row.reason}`);

const rowOf = (rows: readonly CheckRow[], environment: string, kind: CheckRow['kind']): CheckRow => {
  const row = rows.find((candidate) => candidate.environment === environment && candidate.kind === kind);
  assert.ok(row, `a ${kind} row for ${environment}`);
  return row;
};

function parsed(run: CliRun): CheckReport {
  assert.ok(run.stdout.startsWith('{'), `JSON on stdout; stderr: ${run.stderr}`);
  return JSON.parse(run.stdout) as CheckReport;
}

describe('pipelinectl check on a local data directory (serve running)', () => {
  let world: World;
  let root: string;
  let dataDir: string;
  const cleanups: (() => unknown)[] = [];
  const runs = new Map<string, CliRun>();
  /** Each pipeline checked alone, through the command's action, on the same data directory. */
  const reports = new Map<PipelineName, CheckReport>();
  let unknown: unknown;

  before(async () => {
    world = await startWorld();
    root = await mkdtemp(join(tmpdir(), 'pipeline-controller-check-'));
    dataDir = join(root, 'data');
    const changed = world.configuration.replace(
      `metadata: {name: healthy, namespace: ${NAMESPACE}}`,
      `metadata: {name: healthy, namespace: ${NAMESPACE}, labels: {team: web}}`,
    );
    assert.notEqual(changed, world.configuration);
    await writeFiles(root, { 'config/fleet.yaml': world.configuration, 'changed/fleet.yaml': changed });
    // serve applies the configuration and records its GitHub API URL in serve.json, where check finds it.
    await startServe({ after: (cleanup) => cleanups.push(cleanup) }, [
      ...['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0'],
      ...['--poll-interval', '24h', '--github-api-url', world.github.url],
    ]);
    // The runs are independent (a label on a pipeline changes no check): together they take the slowest one's time.
    const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);
    const planned: [string, Promise<CliRun>][] = [
      ['healthy', cli('check', `${NAMESPACE}/healthy`)],
      ['no-marker', cli('check', `${NAMESPACE}/no-marker`)],
      ['all', cli('check', '-o', 'json')],
      ['apply --dry-run', cli('apply', '-f', join(root, 'changed'), '--dry-run')],
      ['apply', cli('apply', '-f', join(root, 'changed'))],
    ];
    const backend = await openLocalBackend(dataDir);
    try {
      for (const name of PIPELINES)
        reports.set(name, await runChecks(backend, { pipeline: { namespace: NAMESPACE, name } }));
      unknown = await runChecks(backend, { pipeline: { namespace: NAMESPACE, name: 'nope' } }).catch(
        (error: unknown) => error,
      );
    } finally {
      await backend.close();
    }
    const done = await Promise.all(planned.map(([, run]) => run));
    planned.forEach(([name], i) => runs.set(name, done[i] as CliRun));
  });

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await world.stop();
    await rm(root, { recursive: true, force: true });
  });

  const run = (name: string): CliRun => {
    const found = runs.get(name);
    assert.ok(found, `the run ${name}`);
    return found;
  };
  const report = (name: PipelineName): CheckReport => {
    const found = reports.get(name);
    assert.ok(found, `the check of ${name}`);
    return found;
  };
  /** The exit code the command ends with for a report (0: nothing failed). */
  const exitCode = (name: PipelineName) => checkFailure(report(name).summary)?.exitCode ?? 0;

  it('a healthy pipeline: exit 0, every row ok, one table line per check and the summary', () => {
    const { code, stdout, stderr } = run('healthy');
    assert.equal(code, 0, stderr);
    const [header, ...rest] = lines(stdout);
    assert.match(header ?? '', /^PIPELINE +ENVIRONMENT +TARGET +CHECK +RESULT +MESSAGE$/);
    assert.deepEqual(rest.slice(-2), ['', '8 checks: 8 ok, 0 failed, 0 warnings, 0 skipped']);
    const expected = [
      /^flux-system\/healthy +dev +flux-system\/fleet dev +cluster-reachable +ok +cluster flux-system\/fleet answers$/,
      /^flux-system\/healthy +dev +flux-system\/fleet dev +app-object +ok +HelmRelease dev\/healthy exists on cluster flux-system\/fleet, served as helm\.toolkit\.fluxcd\.io\/v2$/,
      /^flux-system\/healthy +prod +flux-system\/fleet prod +cluster-reachable +ok +cluster flux-system\/fleet answers$/,
      /^flux-system\/healthy +prod +flux-system\/fleet prod +app-object +ok +HelmRelease prod\/healthy exists on cluster flux-system\/fleet, served as helm\.toolkit\.fluxcd\.io\/v2$/,
      /^flux-system\/healthy +prod +git-repository +ok +https:\/\/github\.com\/acme\/fleet can be read with Secret flux-system\/github$/,
      /^flux-system\/healthy +prod +git-permissions +ok +Secret flux-system\/github may push to https:\/\/github\.com\/acme\/fleet \(GitHub permissions: push\)$/,
      /^flux-system\/healthy +prod +base-branch +ok +the base branch main is at [0-9a-f]{12}$/,
      /^flux-system\/healthy +prod +markers +ok +\{"\$promotion": "flux-system:healthy:prod"\} in 1 file: apps\/healthy\/release\.yaml$/,
    ];
    const rows = rest.slice(0, -2);
    assert.equal(rows.length, expected.length, stdout);
    rows.forEach((row, i) => assert.match(row, expected[i] as RegExp));
    assert.deepEqual(notOk(report('healthy').rows), []);
    assert.equal(exitCode('healthy'), 0);
  });

  it('a missing marker: exit 2, the markers row names the environment and says no file holds ns:name:env', () => {
    const { code, stdout, stderr } = run('no-marker');
    assert.equal(code, 2, stderr);
    const failed = lines(stdout).filter((line) => / markers +failed /.test(line));
    assert.equal(failed.length, 1, stdout);
    assert.match(
      failed[0] ?? '',
      /^flux-system\/no-marker +prod +markers +failed +no file holds \{"\$promotion": "flux-system:no-marker:prod"\} in https:\/\/github\.com\/acme\/fleet at main: a promotion to prod would fail$/,
    );
    assert.equal(lines(stdout).at(-1), '8 checks: 7 ok, 1 failed, 0 warnings, 0 skipped');
    assert.equal(lines(stderr).at(-1), 'error: 1 check failed: a promotion would fail (see the rows marked failed)');
    assert.deepEqual(notOk(report('no-marker').rows), ['prod markers failed no-marker']);
  });

  it('a token GitHub rejects: exit 2, the git-repository row names the Secret, the rows resting on it are skipped', () => {
    const { rows } = report('bad-token');
    assert.equal(exitCode('bad-token'), 2);
    assert.deepEqual(notOk(rows), [
      'prod git-repository failed repository-unreadable',
      'prod git-permissions skipped earlier-check-failed',
      'prod base-branch skipped earlier-check-failed',
      'prod markers skipped earlier-check-failed',
    ]);
    assert.match(
      rowOf(rows, 'prod', 'git-repository').message,
      /: 401 Bad credentials: GitHub rejected the credentials of Secret flux-system\/github-rejected$/,
    );
    assert.doesNotMatch(JSON.stringify(rows), new RegExp(REJECTED_TOKEN), 'the token is never shown');
  });

  it('a read-only token: exit 2, the git-permissions row fails, naming the Secret', () => {
    const { rows } = report('read-only');
    assert.equal(exitCode('read-only'), 2);
    assert.deepEqual(notOk(rows), ['prod git-permissions failed cannot-push']);
    assert.equal(
      rowOf(rows, 'prod', 'git-permissions').message,
      'Secret flux-system/github-read-only cannot push to https://github.com/acme/fleet, which a promotion does to ' +
        'open a pull request (GitHub permissions: read only (push is false))',
    );
  });

  it('an unreachable cluster: exit 2, the cluster-reachable rows name the cluster, the app rows are skipped', () => {
    const { rows } = report('unreachable');
    assert.equal(exitCode('unreachable'), 2);
    assert.deepEqual(notOk(rows), [
      'dev cluster-reachable failed unreachable',
      'dev app-object skipped earlier-check-failed',
      'prod cluster-reachable failed unreachable',
      'prod app-object skipped earlier-check-failed',
    ]);
    assert.match(
      rowOf(rows, 'dev', 'cluster-reachable').message,
      /^cluster flux-system\/down: cannot reach https:\/\/127\.0\.0\.1:\d+ /,
    );
  });

  it('a missing app object: exit 2, the app-object rows name the kind, namespace/name and the cluster', () => {
    const { rows } = report('no-app');
    assert.equal(exitCode('no-app'), 2);
    assert.deepEqual(notOk(rows), ['dev app-object failed app-absent', 'prod app-object failed app-absent']);
    assert.match(
      rowOf(rows, 'prod', 'app-object').message,
      /^HelmRelease prod\/no-app not found on cluster flux-system\/fleet: /,
    );
  });

  it('-o json over every pipeline: one document holding every row, and exit 2', () => {
    const all = run('all');
    assert.equal(all.code, 2, all.stderr);
    const json = parsed(all);
    assert.deepEqual(json.pipelines, PIPELINES.map((name) => `${NAMESPACE}/${name}`).sort());
    // The same rows as each pipeline checked alone.
    assert.deepEqual(
      json.rows,
      [...PIPELINES].sort().flatMap((name) => report(name).rows),
    );
    assert.equal(json.rows.length, PIPELINES.length * 8, 'four target rows and four Git rows per pipeline');
    assert.deepEqual(json.summary, { ok: 36, failed: 7, warning: 0, skipped: 5 });
  });

  it('an unknown pipeline is an error naming it (exit 1)', () => {
    assert.ok(unknown instanceof CliError, String(unknown));
    assert.equal(unknown.exitCode, 1);
    assert.match(
      unknown.message,
      /^pipeline flux-system\/nope not found in local data directory .* \(serve running at /,
    );
  });

  it('apply hints at check once it created or changed a pipeline, not in a dry run', () => {
    const dry = run('apply --dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.doesNotMatch(dry.stderr, /hint:/);
    const applied = run('apply');
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /^pipeline flux-system\/healthy configured$/m);
    assert.deepEqual(
      lines(applied.stderr).filter((line) => line.startsWith('hint:')),
      ['hint: run pipelinectl check flux-system/healthy to see whether its promotions can work'],
    );
  });
});

describe('pipelinectl check on a deployed stack (AWS backend)', () => {
  const region = 'us-east-1';
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  let world: World;
  let dynamo: LocalDynamo;
  let sqsServer: FauxqsServer;
  let aws: AwsStandIn;
  let sqs: SQSClient;
  let secretsManager: SecretsManagerClient;

  before(async () => {
    world = await startWorld();
    [dynamo, sqsServer, aws] = await Promise.all([
      startDynalite(),
      startFauxqs({ port: 0, logger: false, host: '127.0.0.1' }),
      startAwsStandIn(),
    ]);
    sqs = new SQSClient({ endpoint: `http://127.0.0.1:${sqsServer.port}`, region, credentials });
    secretsManager = new SecretsManagerClient({ endpoint: aws.endpoint, region, credentials });
  });

  after(async () => {
    sqs.destroy();
    secretsManager.destroy();
    await Promise.all([dynamo.stop(), sqsServer.stop(), aws.stop(), world.stop()]);
  });

  it('reads the kubeconfigs and the GitHub token from Secrets Manager; the API URL comes from the flag', async () => {
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'work' }))).QueueUrl ?? '';
    const backend = await openAwsBackend(
      { table: dynamo.tableName, queueUrl, region },
      { dynamodb: dynamo.client, sqs, secretsManager },
    );
    try {
      const applied = await applyConfiguration(backend, { source: { text: world.configuration, file: 'fleet.yaml' } });
      assert.ok(applied.ok, applied.ok ? '' : applied.problems.join('\n'));
      assert.ok(
        aws.secrets.has('pipeline-controller/flux-system/fleet-kubeconfig'),
        'the kubeconfig is in Secrets Manager',
      );

      const healthy = await runChecks(backend, {
        pipeline: { namespace: NAMESPACE, name: 'healthy' },
        gitApiUrls: { github: world.github.url },
      });
      assert.deepEqual(notOk(healthy.rows), []);
      assert.equal(healthy.rows.length, 8);

      const broken = await runChecks(backend, {
        pipeline: { namespace: NAMESPACE, name: 'bad-token' },
        gitApiUrls: { github: world.github.url },
      });
      assert.match(rowOf(broken.rows, 'prod', 'git-repository').message, /Secret flux-system\/github-rejected/);
      // Only what was read: the Secrets of the pipelines checked and the kubeconfig of their cluster.
      assert.ok(aws.calls.includes('SecretsManager.GetSecretValue pipeline-controller/flux-system/github'));
    } finally {
      await backend.close();
    }
  });
});
