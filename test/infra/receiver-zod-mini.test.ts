// The receiver's bundle holds zod/mini and none of zod's classic API (the classic API costs the receiver
// about 65 KiB and the CPU to run it at every cold start). One module on the receiver's path that imports `zod`
// rather than `zod/mini` brings the whole classic API back, so a failure names the modules that do; and only the
// English locale is bundled (`z.locales` would bring every language).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { build, type Metafile } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.js';

/** The files of the receiver's bundle that put code into it, with how many bytes each. */
function bundledBytes(metafile: Metafile): Map<string, number> {
  const output = Object.entries(metafile.outputs).find(([file]) => file.endsWith('.mjs'))?.[1];
  assert.ok(output);
  return new Map(
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([file, input]) => [file, input.bytesInOutput]),
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
      .filter(([file]) => !file.startsWith('node_modules/'))
      .filter(([, input]) => input.imports.some((entry) => /node_modules\/zod\/(index|v4\/classic\/)/.test(entry.path)))
      .map(([file]) => file);
    assert.deepEqual(
      { classic, importers },
      { classic: [], importers: [] },
      'modules on the receiver path import zod rather than zod/mini',
    );
  });

  it('holds the English locale only', () => {
    const locales = [...bundledBytes(metafile).keys()].filter((file) =>
      file.startsWith('node_modules/zod/v4/locales/'),
    );
    assert.deepEqual(locales, ['node_modules/zod/v4/locales/en.js']);
  });
});
