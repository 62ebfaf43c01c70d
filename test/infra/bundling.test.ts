// The bundles, built with esbuild's API in memory from the settings the construct uses (infra/bundling.ts): the
// receiver's holds neither the Kubernetes client nor Octokit; the AWS SDK is bundled but for the credential sources
// Lambda never uses, which every bundle reaches only through `import()`, and a bundled client finds Lambda's
// credentials without them; node-fetch (the Kubernetes client's HTTP) runs on Node's `URL` without whatwg-url and its
// tables. (Synths in tests skip bundling; `npx cdk synth` in .ci/run runs the construct's own
// esbuild, and `npm run bundle-sizes` prints the same numbers.)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import {
  BUNDLE_SETTINGS,
  esbuildOptions,
  ESM_REQUIRE_BANNER,
  type FunctionName,
  LAZY_CREDENTIAL_PACKAGES,
  loadedAtStart,
  RECEIVER_BUNDLE_LIMIT_BYTES,
  receiverBundleProblems,
  REPO_ROOT,
  VERIFIER_ONLY_PACKAGES,
} from '../../infra/bundling.js';

interface Bundle {
  code: string;
  metafile: Metafile;
}

async function bundle(name: FunctionName): Promise<Bundle> {
  const result = await build({ ...esbuildOptions(name, `/virtual/${name}/index.mjs`), metafile: true, write: false });
  const code = result.outputFiles.find((file) => file.path.endsWith(`/${name}/index.mjs`));
  assert.ok(code);
  return { code: code.text, metafile: result.metafile };
}

const contains = (bundle: Bundle, pkg: string) =>
  Object.keys(bundle.metafile.inputs).some((input) => input.includes(`node_modules/${pkg}`));

/** The packages (not Node's own modules) a bundle's files import rather than hold, with how they import them. */
function externalImports(bundle: Bundle): { path: string; kind: string }[] {
  const builtin = (specifier: string) =>
    specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0] ?? specifier);
  return Object.values(bundle.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.external && !builtin(entry.path))
    .map(({ path, kind }) => ({ path, kind }));
}

const FUNCTIONS: readonly FunctionName[] = ['receiver', 'verifier', 'poller'];

/** A function's options for a script given as `stdin`, bundled into the one file `outfile`. */
function oneFile(name: FunctionName, outfile: string) {
  const { outdir: _outdir, entryPoints: _entryPoints, ...options } = esbuildOptions(name, outfile);
  return { ...options, splitting: false, outfile };
}

describe('bundles', () => {
  const bundles = {} as Record<FunctionName, Bundle>;
  before(async () => {
    [bundles.receiver, bundles.verifier, bundles.poller] = await Promise.all([
      bundle('receiver'),
      bundle('verifier'),
      bundle('poller'),
    ]);
  });

  it('are minified ESM for node22 with the createRequire banner and a source map', () => {
    assert.equal(BUNDLE_SETTINGS.format, 'esm');
    assert.equal(BUNDLE_SETTINGS.target, 'node22');
    for (const { code } of Object.values(bundles)) {
      assert.ok(code.startsWith(ESM_REQUIRE_BANNER));
      assert.match(code, /\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      assert.ok(code.length / code.split('\n').length > 1000, 'minified: long lines');
    }
  });

  it('the receiver holds neither the Kubernetes client nor Octokit; the verifier holds the Kubernetes client', () => {
    for (const pkg of VERIFIER_ONLY_PACKAGES) assert.equal(contains(bundles.receiver, pkg), false, pkg);
    assert.equal(contains(bundles.verifier, '@kubernetes/client-node/'), true);
  });

  it("the verifier's cold start loads none of the clients it uses only for some messages", () => {
    // The Kubernetes client (a cluster read), the Git hosts' clients (a promotion), the EKS and STS clients (an EKS
    // cluster), CloudWatch (an alarms check), EventBridge (an event put on a bus), the YAML parser (a promotion's
    // edit, a ConfigSource's sync, a PipelineSet applied again) and the tar and zip readers (a marker scan's
    // archive): in chunks of their own, loaded by import() when first needed.
    const onDemand = [
      ...['@kubernetes/client-node/', '@octokit/', '@gitbeaker/', 'azure-devops-node-api/'],
      ...['yaml/', 'tar-stream/', 'fflate/'],
    ];
    const atStart = loadedAtStart(bundles.verifier.metafile).inputs;
    const awsOnDemand = ['client-eks/', 'client-sts/', 'client-cloudwatch/', 'client-eventbridge/'].map(
      (client) => `@aws-sdk/${client}`,
    );
    for (const pkg of [...onDemand, ...awsOnDemand]) {
      assert.equal(contains(bundles.verifier, pkg), true, `the verifier holds ${pkg}`);
      assert.deepEqual(
        atStart.filter((input) => input.includes(`node_modules/${pkg}`)),
        [],
        `${pkg} is loaded only when first needed`,
      );
    }
    assert.ok(
      atStart.some((input) => input.includes('node_modules/@aws-sdk/client-dynamodb/')),
      'the store is',
    );
    // So too the product's own modules for those messages: a promotion, a sync, an apply, a verification's checks.
    const inputs = Object.keys(bundles.verifier.metafile.inputs);
    for (const module of [
      'lib/promotion/pull-request/promoter.ts',
      'lib/config-source/sync.ts',
      'lib/apply/apply.ts',
      'lib/verification/evaluate-check.ts',
    ]) {
      assert.ok(inputs.includes(module), `the verifier holds ${module}`);
      assert.equal(atStart.includes(module), false, `${module} is loaded only when first needed`);
    }
  });

  it('the receiver is within its size limit, holding of the Store only the entity modules its routes call', () => {
    const receiver = bundles.receiver;
    const inputs = Object.keys(receiver.metafile.inputs);
    assert.deepEqual(receiverBundleProblems({ bytes: loadedAtStart(receiver.metafile).bytes, inputs }), []);
    // The files that put code in the bundle (a file only passed through, e.g. an index's re-exports, puts none).
    const held = Object.values(receiver.metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0),
    );
    const holds = (file: string) => held.some(([input]) => input === file);
    // The whole Store's assembly and what only the verifier and the poller use of the table: none of it.
    const notCalled = [
      'store',
      'promotions',
      'target-status',
      'poll-summary',
      'freezes',
      'notifications',
      'marker-scans',
    ];
    for (const name of notCalled) assert.equal(holds(`lib/store/dynamodb/${name}.ts`), false, `leaves out ${name}`);
    for (const name of ['configuration', 'approvals', 'audit', 'config-sources']) {
      assert.equal(holds(`lib/store/dynamodb/${name}.ts`), true, `holds ${name}`);
    }
  });

  it("hold no zod locale but the English one (zod's `z` namespace brings every language)", () => {
    // `import { z } from 'zod'` makes esbuild keep the whole namespace object, `z.locales` with its 40-odd languages
    // and the JSON Schema converters (about 350 KiB that every cold start compiles); `import * as z` keeps what is used.
    for (const name of FUNCTIONS) {
      const locales = Object.values(bundles[name].metafile.outputs)
        .flatMap((output) => Object.entries(output.inputs))
        .filter(([file, { bytesInOutput }]) => bytesInOutput > 0 && file.includes('node_modules/zod/v4/locales/'))
        .map(([file]) => file.slice(file.indexOf('node_modules/')));
      const languages = locales.filter((file) => !/\/locales\/(en|index)\.js$/.test(file));
      assert.deepEqual(languages, [], name);
    }
  });

  it("the verifier's node-fetch gets Node's URL in place of whatwg-url and its tr46 tables", () => {
    assert.deepEqual(BUNDLE_SETTINGS.alias, { 'whatwg-url': 'node:url' });
    assert.equal(contains(bundles.verifier, 'node-fetch/'), true);
    for (const pkg of ['whatwg-url/', 'tr46/']) assert.equal(contains(bundles.verifier, pkg), false, pkg);
  });

  it('hold the AWS SDK, leaving out only credential sources, each reached through import() alone', () => {
    assert.deepEqual(BUNDLE_SETTINGS.externalModules, [...LAZY_CREDENTIAL_PACKAGES]);
    for (const name of FUNCTIONS) {
      // The SDK is bundled on purpose (infra/bundling.ts says why), the default chain with its environment source.
      for (const pkg of ['@aws-sdk/client-dynamodb/', '@aws-sdk/credential-provider-node/', '@smithy/core/']) {
        assert.equal(contains(bundles[name], pkg), true, `${name} holds ${pkg}`);
      }
      for (const pkg of [...LAZY_CREDENTIAL_PACKAGES, '@aws-sdk/nested-clients']) {
        assert.equal(contains(bundles[name], `${pkg}/`), false, `${name} leaves out ${pkg}`);
      }
      // An import at load would run the runtime's copy of the SDK at every cold start: none.
      const credentialImports = externalImports(bundles[name]).filter((entry) =>
        (LAZY_CREDENTIAL_PACKAGES as readonly string[]).includes(entry.path),
      );
      assert.ok(credentialImports.length > 0, `${name}: the default chain's import()s are there`);
      assert.deepEqual(
        credentialImports.filter((entry) => entry.kind !== 'dynamic-import'),
        [],
        name,
      );
    }
    // The receiver and the poller import nothing else from outside; the verifier's other externals are optional
    // requires of its dependencies, each in a try (esbuild leaves out what it cannot find there).
    for (const name of ['receiver', 'poller'] as const) {
      assert.deepEqual(
        externalImports(bundles[name]).filter(
          (entry) => !(LAZY_CREDENTIAL_PACKAGES as readonly string[]).includes(entry.path),
        ),
        [],
        name,
      );
    }
  });
});

describe('a bundled SDK client on Lambda', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-credentials-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('finds the credentials Lambda puts in the environment with no left-out package (no node_modules near)', async () => {
    // A client built as lib/runtime/aws.ts builds them, bundled with the functions' settings into a directory with no
    // node_modules on its way up: an import of a left-out package would fail here.
    const outfile = path.join(dir, 'client.mjs');
    await build({
      ...oneFile('receiver', outfile),
      stdin: {
        contents:
          "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n" +
          'const credentials = await new DynamoDBClient({}).config.credentials();\n' +
          'process.stdout.write(JSON.stringify({ accessKeyId: credentials.accessKeyId }));\n',
        resolveDir: REPO_ROOT,
        sourcefile: 'client.ts',
        loader: 'ts',
      },
      logLevel: 'warning',
    });
    assert.deepEqual((await readdir(dir)).sort(), ['client.mjs', 'client.mjs.map']);
    const { stdout } = await promisify(execFile)(process.execPath, [outfile], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEFROMLAMBDA',
        AWS_SECRET_ACCESS_KEY: 'not-a-real-secret',
        AWS_SESSION_TOKEN: 'not-a-real-token',
      },
    });
    assert.deepEqual(JSON.parse(stdout), { accessKeyId: 'AKIAEXAMPLEFROMLAMBDA' });
  });
});

describe("node-fetch bundled with the functions' settings", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pipeline-controller-fetch-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('fetches from a server, with the path and query it was given', async () => {
    const server = createServer((request, response) => response.end(`got ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const outfile = path.join(dir, 'fetch.mjs');
      await build({
        ...oneFile('verifier', outfile),
        stdin: {
          contents:
            "import fetch from 'node-fetch';\n" +
            'const response = await fetch(process.argv[2]);\n' +
            'process.stdout.write(`${response.status} ${await response.text()}`);\n',
          resolveDir: REPO_ROOT,
          sourcefile: 'fetch.ts',
          loader: 'ts',
        },
        logLevel: 'warning',
      });
      const { port } = server.address() as AddressInfo;
      const url = `http://127.0.0.1:${port}/apis/helm.toolkit.fluxcd.io/v2/helmreleases?limit=500&continue=a%2Fb`;
      const { stdout } = await promisify(execFile)(process.execPath, [outfile, url], {
        cwd: dir,
        env: { PATH: process.env.PATH },
      });
      assert.equal(stdout, '200 got /apis/helm.toolkit.fluxcd.io/v2/helmreleases?limit=500&continue=a%2Fb');
    } finally {
      server.close();
    }
  });
});

describe('receiverBundleProblems', () => {
  const small = { bytes: RECEIVER_BUNDLE_LIMIT_BYTES, inputs: ['lib/http/receiver.ts', 'node_modules/zod/index.js'] };

  it('finds none in a bundle at its limit without the verifier clients', () => {
    assert.deepEqual(receiverBundleProblems(small), []);
  });

  it('names a verifier client inside, and a size over the limit', () => {
    assert.deepEqual(
      receiverBundleProblems({
        bytes: RECEIVER_BUNDLE_LIMIT_BYTES + 1,
        inputs: [...small.inputs, 'node_modules/@octokit/rest/dist-src/index.js'],
      }),
      [
        "the receiver's bundle must not contain @octokit/",
        `the receiver's bundle is ${((RECEIVER_BUNDLE_LIMIT_BYTES + 1) / 1024).toFixed(1)} KiB, over its limit of 400 KiB`,
      ],
    );
  });
});
