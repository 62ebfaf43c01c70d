// The one installable package: `npm pack` of this repository, installed offline into a fresh CDK app
// outside it, is all a user needs: the construct from `pipeline-controller/infra` synthesizes with the prebuilt
// Lambda bundles (no esbuild, none of this repository's sources), TypeScript finds its declarations, and the
// installed `pipelinectl` runs from the compiled JavaScript. It stays light: the app gets neither the local mode's
// dynalite (an optional peer dependency) with its LevelDB, nor tsx, nor the simulation (the demo, the fakes and their
// test TLS key). Packing builds everything once (about a minute).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { packIntoFreshApp, REPO_ROOT, run, type PackedApp } from './packed-app.js';
import { PATIENCE_MS } from '../../lib/testing/wait-for.js';

const FUNCTIONS = ['receiver', 'verifier', 'poller'] as const;

/** The app a user writes (docs/deploying.md), synthesized with asset metadata and without staging copies. */
const APP = `import { App, Stack } from 'aws-cdk-lib';
import { PipelineController } from 'pipeline-controller/infra';

const app = new App({
  outdir: 'cdk.out',
  // The template then says where each function's code was taken from, rather than naming a copy in cdk.out.
  context: { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:disable-asset-staging': true },
});
const stack = new Stack(app, 'FleetPromotions', { env: { account: '123456789012', region: 'eu-west-1' } });
new PipelineController(stack, 'Controller', {
  eksClusterArns: ['arn:aws:eks:eu-west-1:123456789012:cluster/prod-eu'],
});
app.synth();
console.log(import.meta.resolve('pipeline-controller/infra'));
`;

/** The README's example app ("Deploying to AWS"): the TypeScript a user starts from. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1] ?? '');
  const example = blocks.find((block) => block.includes("from 'pipeline-controller/infra'"));
  assert.ok(example, "README.md has a ```ts example that imports 'pipeline-controller/infra'");
  return example;
}

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

/** Without the test runner's own variables, so that the child is a plain `node`. */
const PLAIN_NODE = { NODE_TEST_CONTEXT: undefined, NODE_OPTIONS: undefined };

describe('the packed package, installed into a fresh CDK app', { timeout: 4 * PATIENCE_MS }, () => {
  let packed: PackedApp;
  before(async () => {
    packed = await packIntoFreshApp();
  });
  after(() => packed?.cleanup());

  it('holds the compiled code, the Lambda bundles, the bin and the README, and no TypeScript source', (t) => {
    const files = packed.pack.files.map((file) => file.path);
    t.diagnostic(
      `${packed.pack.filename}: ${(packed.pack.size / 1024 ** 2).toFixed(1)} MiB packed, ` +
        `${(packed.pack.unpackedSize / 1024 ** 2).toFixed(1)} MiB unpacked, ${packed.pack.entryCount} files`,
    );
    const outside = files.filter((file) => !/^(dist\/|bin\/pipelinectl\.js$|README\.md$|package\.json$)/.test(file));
    assert.deepEqual(outside, []);
    assert.deepEqual(
      files.filter((file) => /\.[cm]?ts$/.test(file) && !file.endsWith('.d.ts')),
      [],
    );
    for (const file of [
      'bin/pipelinectl.js',
      'dist/lib/cli/main.js',
      'dist/infra/index.js',
      'dist/infra/index.d.ts',
      ...FUNCTIONS.map((name) => `dist/bundles/${name}/index.mjs`),
      // Read at run time beside the compiled modules.
      'dist/lib/cli/dashboard/assets/dashboard.css',
    ]) {
      assert.ok(files.includes(file), `${file} is in the package`);
    }
  });

  it('leaves out the simulation: the demo, the fakes, their TLS key and certificates, the examples', () => {
    const files = packed.pack.files.map((file) => file.path);
    assert.deepEqual(
      files.filter((file) => /^dist\/(lib\/demo|lib\/testing|examples)\/|\.(key|crt|pem)$/.test(file)),
      [],
    );
  });

  it("installs neither dynalite, LevelDB, tsx, esbuild nor fauxqs into the app's node_modules", async () => {
    const lock = JSON.parse(await readFile(path.join(packed.appDir, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    const unwanted =
      /(^|\/)node_modules\/(dynalite|level|classic-level|memory-level|abstract-level|tsx|esbuild|fauxqs)$/;
    assert.deepEqual(
      Object.keys(lock.packages).filter((at) => unwanted.test(at)),
      [],
    );
    for (const name of ['dynalite', 'classic-level', 'tsx', 'esbuild', 'fauxqs']) {
      assert.equal(existsSync(path.join(packed.appDir, 'node_modules', name)), false, `${name} is not installed`);
    }
  });

  it('says what to install for the local mode, and where the demo runs, in one line each', async () => {
    const pipelinectl = path.join(packed.appDir, 'node_modules', '.bin', 'pipelinectl');
    const secret = path.join(packed.appDir, 'secret.yaml');
    await writeFile(secret, 'apiVersion: v1\nkind: Secret\nmetadata: {name: github, namespace: flux-system}\n');
    const dataDir = path.join(packed.appDir, '.data');
    const applied = await run(pipelinectl, ['apply', '-f', secret, '--data-dir', dataDir], {
      cwd: packed.appDir,
      env: PLAIN_NODE,
    });
    assert.equal(applied.code, 1, applied.stdout);
    assert.match(
      applied.stderr,
      /^error: the local mode .* needs dynalite, which is not installed: run `npm install dynalite`/,
    );
    assert.equal(applied.stderr.trim().split('\n').length, 1, applied.stderr);

    const demo = await run(pipelinectl, ['demo', '--no-dashboard'], { cwd: packed.appDir, env: PLAIN_NODE });
    assert.equal(demo.code, 1, demo.stdout);
    assert.match(demo.stderr, /^error: pipelinectl demo runs from a clone of the pipeline-controller repository/);
    assert.equal(demo.stderr.trim().split('\n').length, 1, demo.stderr);
  });

  it('synthesizes PipelineController from pipeline-controller/infra with the packed bundles, no esbuild', async () => {
    await writeFile(path.join(packed.appDir, 'app.mjs'), APP);
    const synth = await run(process.execPath, ['app.mjs'], { cwd: packed.appDir, env: PLAIN_NODE });
    assert.equal(synth.code, 0, synth.stderr);
    // The construct came from the app's own node_modules, not from this repository.
    assert.equal(synth.stdout.trim(), pathToFileURL(path.join(packed.installed, 'dist/infra/index.js')).href);
    assert.doesNotMatch(synth.stderr, /Bundling asset/);

    const template = JSON.parse(
      await readFile(path.join(packed.appDir, 'cdk.out', 'FleetPromotions.template.json'), 'utf8'),
    ) as { Resources: Record<string, Resource> };
    const resources = Object.values(template.Resources);
    const ofType = (type: string) => resources.filter((resource) => resource.Type === type);
    assert.equal(ofType('AWS::DynamoDB::Table').length, 1);
    assert.equal(ofType('AWS::SQS::Queue').length, 2, 'the queue and its dead-letter queue');
    const functions = ofType('AWS::Lambda::Function');
    assert.deepEqual(
      functions.map((fn) => fn.Metadata?.['aws:asset:path']).sort(),
      FUNCTIONS.map((name) => path.join(packed.installed, 'dist', 'bundles', name)).sort(),
    );
    for (const fn of functions) {
      assert.equal(fn.Metadata?.['aws:asset:is-bundled'], false, 'deployed as packed, not bundled at synth');
      assert.equal(fn.Properties?.Handler, 'index.handler');
      assert.equal(fn.Properties?.Runtime, 'nodejs22.x');
    }
  });

  it("type-checks the README's example app against the packed declarations (strict, lib checks on)", async () => {
    await writeFile(path.join(packed.appDir, 'app.ts'), await readmeExample());
    // TypeScript 7, the `typescript` a user installs today (this repository's `typescript-7`).
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
    const checked = await run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--singleThreaded',
        '--strict',
        '--skipLibCheck',
        'false',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        path.join(REPO_ROOT, 'node_modules', '@types'),
        'app.ts',
      ],
      { cwd: packed.appDir, env: PLAIN_NODE },
    );
    assert.equal(checked.code, 0, checked.stdout);
  });

  it("puts the compiled pipelinectl on the app's PATH: --version prints the package's version", async () => {
    const pipelinectl = path.join(packed.appDir, 'node_modules', '.bin', 'pipelinectl');
    const version = await run(pipelinectl, ['--version'], { cwd: packed.appDir, env: PLAIN_NODE });
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), packed.manifest.version);
    const help = await run(pipelinectl, ['--help'], { cwd: packed.appDir, env: PLAIN_NODE });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^ {2}status \[options\] \[pipeline\] /m);
  });

  it('loads every command of the installed pipelinectl (completion reads them all)', async () => {
    const pipelinectl = path.join(packed.appDir, 'node_modules', '.bin', 'pipelinectl');
    const completion = await run(pipelinectl, ['completion', 'bash'], { cwd: packed.appDir, env: PLAIN_NODE });
    assert.equal(completion.code, 0, completion.stderr);
    assert.match(completion.stdout, /^complete -F _pipelinectl pipelinectl$/m);
    assert.match(completion.stdout, /'dlq list'\) printf/);
  });

  it('npx runs the installed pipelinectl without the network, and fails at once where none is installed', async () => {
    const inApp = await run('npx', ['pipelinectl', '--version'], { cwd: packed.appDir, env: PLAIN_NODE });
    assert.equal(inApp.code, 0, inApp.stderr);
    assert.equal(inApp.stdout.trim(), packed.manifest.version);

    // Elsewhere npx asks the registry for a package named `pipelinectl`; offline, npm says so instead of waiting.
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-npx-'));
    try {
      const started = performance.now();
      // An empty global prefix: a pipelinectl installed globally on this machine would be found there first.
      const env = { ...PLAIN_NODE, npm_config_prefix: elsewhere };
      const outside = await run('npx', ['pipelinectl', '--version'], { cwd: elsewhere, env });
      assert.notEqual(outside.code, 0);
      assert.match(outside.stderr, /ENOTCACHED/);
      assert.ok(performance.now() - started < 15_000, 'npx --offline fails without waiting on the network');
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});
