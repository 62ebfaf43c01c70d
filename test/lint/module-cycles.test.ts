// No import cycles in lib/: neither between files nor between the folders of lib/ (lib/config, lib/http, …), type
// imports included, so each folder can be read and tested on top of the ones it uses. `npx madge --circular` finds
// the file cycles too; this also sees the folder cycles, which no file cycle shows (lib/config ↔ lib/pipeline was
// one: a type one way, a function the other).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT as ROOT } from '../support/repo-root.js';

const LIB = join(ROOT, 'lib');

/** Relative specifiers of static imports, re-exports and dynamic imports. */
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** File → the files of lib/ it imports, both as paths relative to the root. */
function importGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(LIB)) {
    const imports = new Set<string>();
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? '';
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (target.startsWith(LIB)) imports.add(relative(ROOT, target));
    }
    graph.set(relative(ROOT, file), imports);
  }
  return graph;
}

/** The same graph between groups of files (a file's group is `groupOf` it); edges inside a group are dropped. */
function grouped(graph: Map<string, Set<string>>, groupOf: (file: string) => string): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  for (const [file, imports] of graph) {
    const from = groupOf(file);
    const edges = groups.get(from) ?? new Set<string>();
    for (const target of imports) if (groupOf(target) !== from) edges.add(groupOf(target));
    groups.set(from, edges);
  }
  return groups;
}

/** The cycles of a graph: its strongly connected components of more than one node (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('module cycles in lib/', () => {
  const graph = importGraph();

  it('reads the imports it checks', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files`);
    assert.ok(graph.get('lib/http/receiver.ts')?.has('lib/http/routes.ts'), 'a static import');
    assert.ok(graph.get('lib/cli/backends/open.ts')?.has('lib/cli/backends/local.ts'), 'a dynamic import');
  });

  it('no file imports itself through others', () => {
    assert.deepEqual(cycles(graph), []);
  });

  it('no folder of lib/ imports itself through others', () => {
    const folderOf = (file: string) => file.split('/').slice(0, 2).join('/');
    assert.deepEqual(cycles(grouped(graph, folderOf)), []);
  });
});
