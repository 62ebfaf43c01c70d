// The receiver's bundle holds zod/mini and none of zod's classic API (the classic API costs the receiver
// about 65 KiB and the CPU to run it at every cold start). One module on the receiver's path that imports `zod`
// rather than `zod/mini` brings the whole classic API back, so a failure names the modules that do; and no locale
// but the English one is bundled (`z.locales` would bring every language).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.js';

/**
 * A package's file as `node_modules/<package>/…` wherever node_modules is: esbuild names a file by its real path, which
 * is outside the checkout when node_modules is a symbolic link to another's (`../../other/node_modules/zod/…`).
 */
const packageFile = (file: string): string => file.slice(Math.max(file.indexOf('node_modules/'), 0));

/** The files of the receiver's bundle (its entry and chunks) that put code into it, with how many bytes each. */
function bundledBytes(metafile: Metafile): Map<string, number> {
  return new Map(
    Object.values(metafile.outputs)
      .flatMap((output) => Object.entries(output.inputs))
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file, input]) => [packageFile(file), input.bytesInOutput]),
  );
}

describe("the receiver's bundle and zod", () => {
  let metafile: Metafile;
  before(async () => {
    const result = await build({
      ...esbuildOptions('receiver', '/virtual/receiver/index.mjs'),
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    metafile = result.metafile;
  });

  it('holds zod/mini and no part of the classic API', () => {
    const files = [...bundledBytes(metafile).keys()];
    assert.ok(files.includes('node_modules/zod/v4/mini/schemas.js'), 'zod/mini is bundled');
    const classic = files.filter((file) => file.startsWith('node_modules/zod/v4/classic/'));
    const importers = Object.entries(metafile.inputs)
      .filter(([file]) => !file.includes('node_modules/'))
      .filter(([, input]) => input.imports.some((entry) => /node_modules\/zod\/(index|v4\/classic\/)/.test(entry.path)))
      .map(([file]) => file);
    assert.deepEqual(
      { classic, importers },
      { classic: [], importers: [] },
      'modules on the receiver path import zod rather than zod/mini',
    );
  });

  it('holds no locale but the English one', () => {
    const locales = [...bundledBytes(metafile).keys()].filter((file) =>
      file.startsWith('node_modules/zod/v4/locales/'),
    );
    assert.deepEqual(
      locales.filter((file) => file !== 'node_modules/zod/v4/locales/en.js'),
      [],
    );
  });
});
