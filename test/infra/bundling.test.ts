// The bundles, built with esbuild's API in memory from the settings the construct uses (infra/bundling.ts): the
// receiver's holds neither the Kubernetes client nor Octokit. (Synths in tests skip bundling; `npx cdk synth` in
// .ci/run runs the construct's own esbuild, and `npm run bundle-sizes` prints the same numbers.)
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { build, type Metafile } from 'esbuild';
import {
  BUNDLE_SETTINGS,
  esbuildOptions,
  ESM_REQUIRE_BANNER,
  type FunctionName,
  VERIFIER_ONLY_PACKAGES,
} from '../../infra/bundling.js';

interface Bundle {
  code: string;
  metafile: Metafile;
}

async function bundle(name: FunctionName): Promise<Bundle> {
  const result = await build({ ...esbuildOptions(name, `/virtual/${name}/index.mjs`), metafile: true, write: false });
  const code = result.outputFiles.find((file) => file.path.endsWith('.mjs'));
  assert.ok(code);
  return { code: code.text, metafile: result.metafile };
}

const contains = (bundle: Bundle, pkg: string) =>
  Object.keys(bundle.metafile.inputs).some((input) => input.includes(`node_modules/${pkg}`));

describe('bundles', () => {
  const bundles = {} as Record<'receiver' | 'verifier', Bundle>;
  before(async () => {
    [bundles.receiver, bundles.verifier] = await Promise.all([bundle('receiver'), bundle('verifier')]);
  });

  it('are minified ESM for node22 with the createRequire banner and a source map, SDK included', () => {
    assert.equal(BUNDLE_SETTINGS.format, 'esm');
    assert.equal(BUNDLE_SETTINGS.target, 'node22');
    assert.deepEqual(BUNDLE_SETTINGS.externalModules, []);
    for (const { code } of Object.values(bundles)) {
      assert.ok(code.startsWith(ESM_REQUIRE_BANNER));
      assert.match(code, /\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      assert.ok(code.length / code.split('\n').length > 1000, 'minified: long lines');
    }
  });

  it('the receiver holds neither the Kubernetes client nor Octokit; the verifier holds the Kubernetes client', () => {
    for (const pkg of VERIFIER_ONLY_PACKAGES) assert.equal(contains(bundles.receiver, pkg), false, pkg);
    assert.equal(contains(bundles.verifier, '@kubernetes/client-node/'), true);
    // The AWS SDK is bundled on purpose (infra/bundling.ts says why).
    assert.equal(contains(bundles.receiver, '@aws-sdk/client-dynamodb/'), true);
  });
});
