// The bounds on configuration input (docs/configuration.md, "Validation"): a file's size, its number of
// documents, what its YAML aliases expand to, a Secret's size and keys, and the `__proto__` key. Each is refused
// with a problem that names the file and the document, quickly and without using much memory.
import assert from 'node:assert/strict';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  formatProblem,
  formatWarning,
  loadConfiguration,
  loadConfigurationText,
  type LoadResult,
} from '../../lib/config/index.js';
import {
  MAX_ALIAS_COUNT,
  MAX_DOCUMENTS_PER_FILE,
  MAX_EXPANDED_BYTES_PER_FILE,
  MAX_FILE_BYTES,
  MAX_SECRET_BYTES,
  MAX_SECRET_KEYS,
} from '../../lib/config/limits.js';
import { tempFiles } from '../support/temp-files.js';

function problemsOf(result: LoadResult): string[] {
  assert.equal(result.ok, false, 'expected the configuration to be rejected');
  return result.ok ? [] : result.problems.map(formatProblem);
}

const secret = (name: string, body: string) => `apiVersion: v1
kind: Secret
metadata: {name: ${name}, namespace: flux-system}
${body}`;

/**
 * Runs `load` and says how much CPU time it took, in milliseconds: the work done, which a busy machine does not
 * stretch as it stretches the wall time.
 */
async function timed<T>(load: () => Promise<T> | T): Promise<{ result: T; ms: number }> {
  const start = process.cpuUsage();
  const result = await load();
  const { user, system } = process.cpuUsage(start);
  return { result, ms: (user + system) / 1000 };
}

describe('configuration input limits', () => {
  it('the limits are the documented ones', () => {
    assert.equal(MAX_FILE_BYTES, 4 * 1024 * 1024);
    assert.equal(MAX_DOCUMENTS_PER_FILE, 10_000);
    assert.equal(MAX_ALIAS_COUNT, 100);
    assert.equal(MAX_EXPANDED_BYTES_PER_FILE, 16 * 1024 * 1024);
    assert.equal(MAX_SECRET_BYTES, 64 * 1024);
    assert.equal(MAX_SECRET_KEYS, 100);
  });

  it('a file over 4 MiB is refused before it is read (a 1 GiB file in milliseconds)', async (t) => {
    const dir = await tempFiles(t, { 'ok.yaml': secret('ok', 'stringData: {token: t}\n') });
    const huge = join(dir, 'huge.yaml');
    // A sparse file: it takes no disk space, but reading it would take 1 GiB of memory.
    const handle = await open(huge, 'w');
    await handle.truncate(1024 ** 3);
    await handle.close();
    const { result, ms } = await timed(() => loadConfiguration(dir));
    assert.deepEqual(problemsOf(result), [
      `${huge}: the file holds 1,024 MiB; a configuration file may hold at most 4 MiB: split it into several files`,
    ]);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  it('a file just over the limit is refused; one at the limit is read', async (t) => {
    const filler = (size: number) => {
      const head = secret('ok', 'stringData: {token: t}\n');
      return head + '#'.repeat(size - head.length - 1) + '\n';
    };
    const dir = await tempFiles(t, { 'at.yaml': filler(MAX_FILE_BYTES), 'over.yaml': filler(MAX_FILE_BYTES + 1) });
    assert.equal((await loadConfiguration(join(dir, 'at.yaml'))).ok, true);
    assert.deepEqual(problemsOf(await loadConfiguration(join(dir, 'over.yaml'))), [
      `${join(dir, 'over.yaml')}: the file holds 4.0 MiB; a configuration file may hold at most 4 MiB: split it into several files`,
    ]);
  });

  it('standard input over 4 MiB is refused, naming it', () => {
    const text = secret('big', `stringData: {token: "${'x'.repeat(MAX_FILE_BYTES)}"}\n`);
    assert.deepEqual(problemsOf(loadConfigurationText(text, '<stdin>')), [
      '<stdin>: the file holds 4.0 MiB; a configuration file may hold at most 4 MiB: split it into several files',
    ]);
  });

  it('an alias bomb ("billion laughs") names the file and the document and says what to do', () => {
    const lines = ['    a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let level = 1; level < 9; level += 1) {
      const [previous, next] = [String.fromCharCode(96 + level), String.fromCharCode(97 + level)];
      lines.push(`    ${next}: &${next} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    }
    const text =
      `${secret('lol', 'stringData: {token: t}\n')}---\n${secret('bomb', 'stringData: {token: t}\n')}`.replace(
        /metadata: \{name: bomb, namespace: flux-system\}\n/,
        `metadata:\n  name: bomb\n  namespace: flux-system\n  annotations:\n${lines.join('\n')}\n`,
      );
    assert.deepEqual(problemsOf(loadConfigurationText(text, 'bomb.yaml')), [
      'bomb.yaml:6:1: Secret flux-system/bomb: its YAML aliases expand to more than 100 copies (an alias bomb?): ' +
        'write the repeated values out, or use fewer aliases',
    ]);
  });

  it('aliases that expand a file past 16 MiB are refused (99 aliases of a 1 MB value), quickly', async () => {
    const aliases = Array.from({ length: 99 }, (_, i) => `  k${i}: *v\n`).join('');
    const text = secret('expanded', `stringData:\n  k: &v ${'x'.repeat(1_000_000)}\n${aliases}`);
    const { result, ms } = await timed(() => loadConfigurationText(text, 'aliases.yaml'));
    const problems = problemsOf(result);
    assert.deepEqual(problems, [
      'aliases.yaml:1:1: Secret flux-system/expanded: with its YAML aliases expanded, the file holds more than ' +
        '16 MiB; a configuration file may expand to at most 16 MiB: write the values out, or use fewer aliases',
    ]);
    assert.ok(ms < 2000, `took ${ms} ms`);
  });

  it('130,000 tiny documents in one file: one clear problem, no stack overflow, in under 2 s', async (t) => {
    const dir = await tempFiles(t, { 'many.yaml': 'a: 1\n---\n'.repeat(130_000) });
    const { result, ms } = await timed(() => loadConfiguration(dir));
    assert.deepEqual(problemsOf(result), [
      `${join(dir, 'many.yaml')}:20001:1: document 10001: the file holds more than 10,000 YAML documents: ` +
        'split it into several files (a directory is read whole)',
    ]);
    assert.ok(ms < 2000, `took ${ms} ms`);
  });

  it('10,000 documents (the limit), each with a problem: every problem reported, no stack overflow', () => {
    const text = `${'a: 1\n---\n'.repeat(9_999)}a: 1\n`;
    const problems = problemsOf(loadConfigurationText(text, 'ten-thousand.yaml'));
    assert.equal(problems.length, 10_000);
    assert.equal(problems[0], 'ten-thousand.yaml:1:1: document 1: kind: is required');
  });

  it('a pipeline with 150,000 duplicate targets: the warnings are reported, no stack overflow', () => {
    const targets = '      - {namespace: a}\n'.repeat(150_000);
    const text = `apiVersion: pipelines.weave.works/v1alpha1
kind: Pipeline
metadata: {name: many, namespace: flux-system}
spec:
  appRef: {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: many}
  environments:
    - name: dev
      targets:
${targets}`;
    // Accepted, as in Weave (docs/weave-compatibility.md): each repeat is a warning.
    const result = loadConfigurationText(text, 'duplicates.yaml', {
      defaultCluster: { namespace: 'flux-system', name: 'dev' },
      known: { clusters: [{ namespace: 'flux-system', name: 'dev' }] },
    });
    if (!result.ok) assert.fail(problemsOf(result).slice(0, 3).join('\n'));
    assert.equal(result.warnings.length, 149_999);
    assert.match(
      result.warnings.slice(0, 1).map(formatWarning).join(''),
      /targets\[1\]: the same target as environments\[0\]\.targets\[0\]/,
    );
  });

  it('a document nested 5,000 levels deep: a problem naming the file, not a crash', () => {
    const text = secret('deep', `stringData: {token: t}\n`).replace(
      'metadata: {name: deep, namespace: flux-system}',
      `metadata: {name: deep, namespace: flux-system, deep: ${'['.repeat(5000)}${']'.repeat(5000)}}`,
    );
    const problems = problemsOf(loadConfigurationText(text, 'deep.yaml'));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /^deep\.yaml:3:\d+: document 1: invalid YAML: nested too deeply to be read$/);
  });

  for (const field of ['stringData', 'data'] as const) {
    it(`a "__proto__" key in a Secret's ${field} is refused, naming the file, the document and the key`, () => {
      const value = field === 'data' ? 'aGVsbG8=' : 'hello';
      const text = secret('proto', `${field}:\n  token: ${value}\n  __proto__: ${value}\n`);
      assert.deepEqual(problemsOf(loadConfigurationText(text, 'proto.yaml')), [
        `proto.yaml:6:3: Secret flux-system/proto: ${field}.__proto__: the key "__proto__" cannot be stored ` +
          '(JavaScript objects and JSON tools treat it specially, so its value would be lost): rename it',
      ]);
    });
  }

  it('a "__proto__" key anywhere else (metadata, a List item) is refused too', () => {
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: gitops.weave.works/v1alpha1
    kind: GitopsCluster
    metadata:
      name: dev
      namespace: flux-system
      annotations: {__proto__: x}
    spec: {eks: {clusterName: dev, region: eu-west-1}}
`;
    assert.deepEqual(problemsOf(loadConfigurationText(text, 'list.yaml')), [
      'list.yaml:9:21: GitopsCluster flux-system/dev: metadata.annotations.__proto__: the key "__proto__" cannot be ' +
        'stored (JavaScript objects and JSON tools treat it specially, so its value would be lost): rename it',
    ]);
  });

  it('a Secret over 64 KiB (as stored) is refused; one just under is accepted', async (t) => {
    const over = secret('over', `stringData: {token: "${'x'.repeat(MAX_SECRET_BYTES)}"}\n`);
    const under = secret('under', `stringData: {token: "${'x'.repeat(MAX_SECRET_BYTES - 20)}"}\n`);
    const dir = await tempFiles(t, { 'over.yaml': over, 'under.yaml': under });
    assert.equal((await loadConfiguration(join(dir, 'under.yaml'))).ok, true);
    assert.deepEqual(problemsOf(await loadConfiguration(join(dir, 'over.yaml'))), [
      `${join(dir, 'over.yaml')}:4:1: Secret flux-system/over: stringData: the values take 64.0 KiB as stored; ` +
        'a Secret may hold at most 64 KiB (the limit of AWS Secrets Manager, kept by the local mode too)',
    ]);
  });

  it('a Secret whose base64 data decodes past 64 KiB is refused too', () => {
    const encoded = Buffer.from('y'.repeat(MAX_SECRET_BYTES)).toString('base64');
    const problems = problemsOf(loadConfigurationText(secret('data', `data: {token: ${encoded}}\n`), 's.yaml'));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /^s\.yaml:4:1: Secret flux-system\/data: data: the values take 64\.0 KiB/);
  });

  it(`a Secret with more than ${MAX_SECRET_KEYS} keys is refused`, () => {
    const keys = Array.from({ length: MAX_SECRET_KEYS + 1 }, (_, i) => `  k${i}: v\n`).join('');
    assert.deepEqual(problemsOf(loadConfigurationText(secret('keys', `stringData:\n${keys}`), 'keys.yaml')), [
      'keys.yaml:4:1: Secret flux-system/keys: stringData: 101 keys; a Secret may hold at most 100',
    ]);
  });

  it('the limits hold for files read from a directory as for standard input', async (t) => {
    const dir = await tempFiles(t, {});
    await writeFile(join(dir, 'proto.yaml'), secret('proto', 'stringData:\n  __proto__: x\n'));
    const problems = problemsOf(await loadConfiguration(dir));
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? '', /proto\.yaml:5:3: Secret flux-system\/proto: stringData\.__proto__: /);
  });
});
