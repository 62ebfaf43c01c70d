// The construct's documentation keeps up with its code: every prop has a JSDoc `@default` and a row in
// infra/README.md's props table, and every context key the app reads is in the README's context table.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CONTEXT_KEYS } from '../../infra/context.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const source = read('infra/pipeline-controller.ts');
const readme = read('infra/README.md');

/** Each `readonly name?:` of the interface, with the JSDoc comment just above it. */
function propsOf(interfaceName: string): { name: string; doc: string }[] {
  const start = source.indexOf(`export interface ${interfaceName} {`);
  assert.ok(start >= 0, interfaceName);
  const body = source.slice(start, source.indexOf('\n}\n', start));
  return [...body.matchAll(/(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)\s*readonly (\w+)\?:/g)].map(([, doc = '', name = '']) => ({
    name,
    doc,
  }));
}

/** The first cells of the README table under `## Props of PipelineController`. */
function readmePropRows(): string[] {
  const section = readme.slice(readme.indexOf('## Props of `PipelineController`'));
  return [...section.matchAll(/^\| `([\w.]+)`/gm)].map(([, name = '']) => name);
}

describe('infra/README.md and the JSDoc of the props', () => {
  const props = propsOf('PipelineControllerProps');

  it('give every prop a default, the nested ones included', () => {
    assert.ok(props.length >= 25, `read ${props.length} props`);
    for (const name of [
      'PipelineControllerProps',
      'NotificationSinkProps',
      'PeopleNotificationProps',
      'VerificationAccessProps',
    ]) {
      const undocumented = propsOf(name).filter(({ doc }) => !doc.includes('@default'));
      assert.deepEqual(
        undocumented.map((prop) => prop.name),
        [],
        name,
      );
    }
  });

  it('give every prop a row in the props table (the nested ones by their fields)', () => {
    const rows = readmePropRows();
    const missing = props
      .map(({ name }) => name)
      .filter((name) => !rows.some((row) => row === name || row.startsWith(`${name}.`)));
    assert.deepEqual(missing, []);
  });

  it('list every context key the app reads', () => {
    const section = readme.slice(readme.indexOf('## The app: context keys'));
    const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| key')));
    const missing = CONTEXT_KEYS.filter((key) => !table.includes(`\`${key}\``));
    assert.deepEqual(missing, []);
  });
});
