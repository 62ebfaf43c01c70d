import { readFile } from 'node:fs/promises';
import type { Plugin } from '/work/main/node_modules/esbuild/lib/main.js';
export const lead: Plugin = { name: 'lead', setup(b) { b.onLoad({ filter: /\/work\/main\/(lib|functions)\/.*\.ts$/ }, async (a) => {
  let text = (await readFile(a.path, 'utf8')).replace(/import \{ z \} from 'zod';/g, "import * as z from 'zod';");
  if (a.path.endsWith('lib/queue/messages.ts')) text = text.replace("from '../config/schema.js'", "from '../pipeline/model.js'");
  return { contents: text, loader: 'ts' }; }); } };
