// What the demo tells a person to type in a second terminal: the command, paths and quoting as a shell needs them.
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';

/** `pipelinectl` when it is on the PATH, else `node <path to bin/pipelinectl.js>` (as under `npm start`). */
export function cliCommand(): string {
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, 'pipelinectl')));
  const script = process.argv[1];
  if (onPath || script === undefined) return 'pipelinectl';
  return `node ${shellQuote(displayPath(script))}`;
}

/** A path relative to the working directory when it is below it, else as it is. */
export function displayPath(path: string): string {
  const below = relative(process.cwd(), path);
  return below !== '' && !below.startsWith('..') && !isAbsolute(below) ? below : path;
}

export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
