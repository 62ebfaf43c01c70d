#!/usr/bin/env node
// pipelinectl's entry. The installed package carries only the compiled CLI (dist/, built by `npm pack`), which starts
// in a fraction of the time; a checkout of this repository runs its TypeScript sources through tsx's loader instead,
// even when a dist/ is lying beside them (`npm pack` builds one), so `npm start` and the tests never run a stale build.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

// The AWS SDK warns on every run that its 2027 releases will need Node 22; for a CLI that is noise, not news.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const sources = new URL('../lib/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/lib/cli/main.js', import.meta.url);

async function loadMain() {
  if (existsSync(sources)) {
    // tsx is a development dependency: a checkout has it after `npm ci`; the installed package never needs it.
    const tsx = await import('tsx/esm/api').catch((error) => {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
      return undefined;
    });
    if (tsx === undefined) {
      console.error(
        'pipelinectl: this checkout runs its TypeScript sources through tsx, which is not installed; run `npm ci`',
      );
      return () => 1;
    }
    tsx.register();
    return (await import(sources.href)).main;
  }
  if (existsSync(compiled)) return (await import(compiled.href)).main;
  // Neither: a checkout whose sources moved, or a package packed without its build (prepack did not run).
  console.error(`pipelinectl: neither ${sources.pathname} nor ${compiled.pathname} exists; run \`npm run build\``);
  return () => 1;
}

const main = await loadMain();
process.exitCode = await main(process.argv);
