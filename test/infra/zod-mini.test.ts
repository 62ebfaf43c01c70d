// What each function loads at its cold start holds zod/mini and none of zod's classic API: the classic API costs a
// bundle about 65 KiB and the CPU to run it at every cold start (docs/benchmarks.md). One module on a function's start
// path that imports `zod` rather than `zod/mini` brings the whole classic API back, so a failure names the modules
// that do. The receiver holds no classic zod at all, not even in a chunk it loads later; the verifier and the poller
// may load it through `import()` (a Git host's client, a verification check, the configuration's schemas), after
// their cold start. No locale but the English one is bundled (`z.locales` would bring every language).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions, loadedAtStart, type FunctionName } from '../../infra/bundling.js';

/**
 * A package's file as `node_modules/<package>/…` wherever node_modules is: esbuild names a file by its real path, which
 * is outside the checkout when node_modules is a symbolic link to another's (`../../other/node_modules/zod/…`).
 */
const packageFile = (file: string): string => file.slice(Math.max(file.indexOf('node_modules/'), 0));

const CLASSIC_ZOD = /node_modules\/zod\/(index|v4\/classic\/)/;

/** The input files of the given outputs that put code into them, as package files. */
function inputsOf(metafile: Metafile, outputs: readonly string[]): string[] {
  return [
    ...new Set(
      outputs
        .flatMap((output) => Object.entries(metafile.outputs[output]?.inputs ?? {}))
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([file]) => packageFile(file)),
    ),
  ];
}

/** The zod files of classic's API among `files`, and the modules of ours among `files` that import it. */
function classicZod(metafile: Metafile, files: readonly string[]): { classic: string[]; importers: string[] } {
  const ours = new Set(files.filter((file) => !file.startsWith('node_modules/')));
  return {
    classic: files.filter((file) => file.startsWith('node_modules/zod/v4/classic/')),
    importers: Object.entries(metafile.inputs)
      .filter(([file, input]) => ours.has(file) && input.imports.some((entry) => CLASSIC_ZOD.test(entry.path)))
      .map(([file]) => file),
  };
}

async function metafileOf(name: FunctionName): Promise<Metafile> {
  const result = await build({
    ...esbuildOptions(name, `/virtual/${name}/index.mjs`),
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  return result.metafile;
}

describe('zod in the functions’ bundles', () => {
  const metafiles = new Map<FunctionName, Metafile>();
  before(async () => {
    for (const name of ['receiver', 'verifier', 'poller'] as const) metafiles.set(name, await metafileOf(name));
  });
  const metafile = (name: FunctionName): Metafile => {
    const found = metafiles.get(name);
    assert.ok(found, `${name} was bundled`);
    return found;
  };

  it('the receiver holds zod/mini and no part of the classic API, in any chunk', () => {
    const receiver = metafile('receiver');
    const files = inputsOf(receiver, Object.keys(receiver.outputs));
    assert.ok(files.includes('node_modules/zod/v4/mini/schemas.js'), 'zod/mini is bundled');
    assert.deepEqual(
      classicZod(receiver, files),
      { classic: [], importers: [] },
      'modules on the receiver path import zod rather than zod/mini',
    );
  });

  for (const name of ['verifier', 'poller'] as const) {
    it(`the ${name} loads zod/mini at its start and no part of the classic API`, () => {
      const bundle = metafile(name);
      const files = loadedAtStart(bundle).inputs.map(packageFile);
      assert.ok(files.includes('node_modules/zod/v4/mini/schemas.js'), 'zod/mini is loaded at start');
      assert.deepEqual(
        classicZod(bundle, files),
        { classic: [], importers: [] },
        `modules the ${name} loads at its start import zod rather than zod/mini`,
      );
    });
  }

  it('holds no locale but the English one', () => {
    for (const [name, bundle] of metafiles) {
      const locales = inputsOf(bundle, Object.keys(bundle.outputs)).filter((file) =>
        file.startsWith('node_modules/zod/v4/locales/'),
      );
      assert.deepEqual(
        locales.filter((file) => file !== 'node_modules/zod/v4/locales/en.js'),
        [],
        name,
      );
    }
  });
});
