// PipelineSets through pipelinectl, as a user runs it on a local data directory: `apply -f` stores the set and the
// pipelines it generates, `get pipelinesets` and `get pipelines` show them, `status` groups them under their set, a
// re-apply prunes what the set no longer generates, a clash with a stored pipeline is refused naming both, and
// `delete pipelineset` takes the set's pipelines with it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { StatusJson } from '../../lib/cli/operations/status.js';
import { runCli } from '../support/pipelinectl.js';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, pipeline, SECRETS } from './fixtures.js';
import { lines } from './helpers.js';

/** A set generating one pipeline per app, dev → prod, each app in a namespace of its name. */
const webApps = (apps: readonly string[]) => `
apiVersion: pipeline-controller.io/v1alpha1
kind: PipelineSet
metadata: { name: web-apps, namespace: flux-system }
spec:
  generators:
    - list: { elements: [${apps.map((app) => `{ app: ${app}, team: web }`).join(', ')}] }
  template:
    metadata: { name: '{{ app }}' }
    spec:
      appRef: { apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: '{{ app }}' }
      environments:
        - name: dev
          targets: [{ namespace: '{{ app }}', clusterRef: { kind: GitopsCluster, name: dev } }]
        - name: prod
          targets: [{ namespace: '{{ team }}-{{ app }}', clusterRef: { kind: GitopsCluster, name: prod } }]
      promotion:
        strategy: { notification: {}, secretRef: { name: webhook-hmac } }
`;

describe('pipelinectl and PipelineSets on a local data directory', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  const cli = (args: string[], input?: string) =>
    runCli([...args, '--data-dir', dataDir], input === undefined ? {} : { input });
  const apply = async (text: string) => cli(['apply', '-f', '-'], text);
  const statusJson = async () => {
    const run = await cli(['status', '-o', 'json']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as StatusJson;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-pipeline-sets-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/clusters.yaml': CLUSTERS,
      'config/secrets.yaml': SECRETS,
      'config/pipeline.yaml': pipeline('apps'),
    });
    const applied = await cli(['apply', '-f', join(root, 'config')]);
    assert.equal(applied.code, 0, applied.stderr);
  });
  after(() => rm(root, { recursive: true, force: true }));

  it('apply -f stores the set and one ordinary pipeline per element', async () => {
    const run = await apply(webApps(['frontend', 'checkout']));
    assert.equal(run.code, 0, run.stderr);
    assert.ok(lines(run.stdout).includes('pipelineset flux-system/web-apps created'), run.stdout);
    assert.ok(lines(run.stdout).includes('pipeline flux-system/frontend created'), run.stdout);
    assert.ok(lines(run.stdout).includes('pipeline flux-system/checkout created'), run.stdout);

    const sets = await cli(['get', 'pipelinesets']);
    assert.equal(sets.code, 0, sets.stderr);
    const [header, row, ...rest] = lines(sets.stdout);
    assert.match(header ?? '', /^NAMESPACE\s+NAME\s+PIPELINES\s+APPLIED\s+GENERATORS$/);
    assert.match(row ?? '', /^flux-system\s+web-apps\s+2\s+.*\s+list of 2$/);
    assert.deepEqual(rest, []);

    const pipelines = lines((await cli(['get', 'pipelines'])).stdout);
    assert.match(pipelines[0] ?? '', /\bSET\b/);
    assert.match(pipelines.find((line) => /\bfrontend\b/.test(line)) ?? '', /HelmRelease frontend\s+web-apps\s/);
    assert.match(pipelines.find((line) => /\bpodinfo\b/.test(line)) ?? '', /HelmRelease podinfo\s+-\s/);

    const json = await statusJson();
    const frontend = json.pipelines.find((p) => p.name === 'frontend');
    assert.equal(frontend?.pipelineSet, 'flux-system/web-apps');
    assert.deepEqual(
      frontend?.environments.map((env) => env.targets.map((target) => target.namespace)),
      [['frontend'], ['web-frontend']],
    );
    assert.equal(json.pipelines.find((p) => p.name === 'podinfo')?.pipelineSet, undefined);
  });

  it('status shows the hand-written pipelines first, then the generated ones under their set', async () => {
    const run = await cli(['status']);
    assert.equal(run.code, 0, run.stderr);
    const shown = lines(run.stdout);
    const at = (pattern: RegExp) => shown.findIndex((line) => pattern.test(line));
    const heading = at(/^PipelineSet flux-system\/web-apps: 2 pipelines generated$/);
    assert.ok(heading > at(/^flux-system\/podinfo\s/), run.stdout);
    assert.ok(at(/^flux-system\/checkout\s/) > heading, run.stdout);
    assert.ok(at(/^flux-system\/frontend\s/) > heading, run.stdout);
  });

  it('a re-apply prunes the pipelines the set no longer generates', async () => {
    const run = await apply(webApps(['frontend', 'search']));
    assert.equal(run.code, 0, run.stderr);
    const shown = lines(run.stdout);
    assert.ok(shown.includes('pipeline flux-system/search created'), run.stdout);
    assert.ok(shown.includes('pipeline flux-system/checkout pruned'), run.stdout);
    assert.deepEqual(
      (await statusJson()).pipelines.map((p) => p.name),
      ['frontend', 'podinfo', 'search'],
    );
  });

  it('refuses a generated name a stored hand-written pipeline has, naming both, and writes nothing', async () => {
    const run = await apply(webApps(['frontend', 'podinfo']));
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /PipelineSet flux-system\/web-apps \(element app=podinfo\): metadata\.name: Pipeline flux-system\/podinfo exists already, written by hand/,
    );
    assert.deepEqual(
      (await statusJson()).pipelines.map((p) => [p.name, p.pipelineSet ?? null]),
      [
        ['frontend', 'flux-system/web-apps'],
        ['podinfo', null],
        ['search', 'flux-system/web-apps'],
      ],
    );
  });

  it('refuses a hand-written pipeline taking the name of one a stored set generates', async () => {
    const run = await apply(pipeline('apps').replace('name: podinfo, namespace', 'name: search, namespace'));
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /Pipeline flux-system\/search: metadata\.name: Pipeline flux-system\/search exists already, generated by PipelineSet flux-system\/web-apps/,
    );
  });

  it('delete refuses a generated pipeline alone, and a set goes with its pipelines', async () => {
    const alone = await cli(['delete', 'pipeline', 'flux-system/search']);
    assert.equal(alone.code, 1);
    assert.match(alone.stderr, /generated by PipelineSet flux-system\/web-apps/);

    const run = await cli(['delete', 'pipelineset', 'flux-system/web-apps']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(lines(run.stdout).sort(), [
      'pipeline flux-system/frontend deleted',
      'pipeline flux-system/search deleted',
      'pipelineset flux-system/web-apps deleted',
    ]);
    assert.deepEqual(
      (await statusJson()).pipelines.map((p) => p.name),
      ['podinfo'],
    );
    const sets = await cli(['get', 'pipelinesets']);
    assert.match(sets.stderr, /no pipelinesets stored/);
  });
});
