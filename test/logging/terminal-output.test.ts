// Terminal escape codes from unauthenticated requests never reach a terminal raw. The receiver runs over node:http
// with the logger `pipelinectl serve` uses on a terminal (text lines, chosen because the stream is a TTY), and gets
// percent-encoded control characters in its path segments and, in correctly signed Flux events, in the fields it
// logs (involvedObject, reason, revision) and the one it does not (message). The demo's screen gets them too, in
// what it shows of the controller's log, its audit trail and its view lines. Nothing may arrive raw: not C0 (ESC,
// BEL, …), not DEL, not C1 (U+009B is an 8-bit CSI), not a Unicode bidi override or isolate (which can make a line
// read differently from what it holds); and each value must still be recognisable, as its `\u{…}` escape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineDocument } from '../../lib/config/schema.js';
import { Activity } from '../../lib/demo/activity.js';
import { Screen } from '../../lib/demo/screen.js';
import { handleRequest } from '../../lib/http/receiver.js';
import type { ReceiverDeps } from '../../lib/http/receiver-deps.js';
import { startHttpServer, type RunningHttpServer } from '../../lib/http/node-server.js';
import { createConsoleLogger } from '../../lib/logging/console-logger.js';
import { resolvePipeline } from '../../lib/pipeline/model.js';
import { EmbeddedQueue } from '../../lib/queue/index.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

const NOW = new Date('2025-10-01T12:00:00Z');
const MASTER_KEYS = { current: 'terminal-test-master-key-6e1d' };
const WEBHOOK_KEY = 'terminal-test-webhook-key-2b9f';
const FLEET_EU = { namespace: 'flux-system', name: 'fleet-eu' };

/** Every character that must never reach a terminal raw (the line's own `\n` end is split off before checking). */
const UNSAFE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** What an attacker puts in a path segment, percent-encoded, and the escape a person reads in the log instead. */
const HOSTILE_SEGMENTS: { encoded: string; escaped: string }[] = [
  { encoded: '%1B[2J', escaped: '\\u{1b}[2J' },
  { encoded: '%07', escaped: '\\u{7}' },
  { encoded: '%C2%9B', escaped: '\\u{9b}' },
  { encoded: '%E2%80%AE', escaped: '\\u{202e}' },
  { encoded: 'x%E2%81%A6y', escaped: 'x\\u{2066}y' },
  { encoded: 'a%7Fb', escaped: 'a\\u{7f}b' },
];

/** The same characters as they come inside a Flux event's JSON fields. */
const HOSTILE_TEXTS: { raw: string; escaped: string }[] = [
  { raw: 'podinfo\u001b[2J', escaped: 'podinfo\\u{1b}[2J' },
  { raw: '\u0007UpgradeSucceeded', escaped: '\\u{7}UpgradeSucceeded' },
  { raw: '6.9.2\u202egnp.exe', escaped: '6.9.2\\u{202e}gnp.exe' },
  { raw: 'apps\u009b31m', escaped: 'apps\\u{9b}31m' },
];

function pipelineDocument(): PipelineDocument {
  return {
    apiVersion: 'pipelines.weave.works/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'podinfo', namespace: 'flux-system' },
    spec: {
      appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
      environments: [
        { name: 'dev', targets: [{ namespace: 'apps', clusterRef: { kind: 'GitopsCluster', name: 'fleet-eu' } }] },
      ],
      promotion: { strategy: { notification: {}, secretRef: { name: 'podinfo-webhook' } } },
    },
  };
}

/** A stream that says it is a terminal, as process.stdout does when `serve` runs in one. */
function fakeTerminal() {
  const written: string[] = [];
  return { written, stream: { isTTY: true, write: (text: string) => written.push(text) } };
}

/** The lines written, each without its final newline: none may hold an unsafe character. */
function assertPrintable(written: readonly string[]): string {
  const text = written.join('');
  for (const line of text.split('\n')) {
    const unsafe = UNSAFE.exec(line);
    assert.equal(unsafe, null, `raw U+${unsafe?.[0].codePointAt(0)?.toString(16)} in ${JSON.stringify(line)}`);
  }
  return text;
}

/** Whether `escaped` shows in `text`: as it is, or inside a JSON string (a nested value of a text line). */
function shows(text: string, escaped: string): boolean {
  return text.includes(escaped) || text.includes(JSON.stringify(escaped).slice(1, -1));
}

describe('control characters from requests never reach a terminal raw', () => {
  const terminal = fakeTerminal();
  const store = new MemoryStore();
  let server: RunningHttpServer;

  before(async () => {
    await store.applyCluster(
      {
        apiVersion: 'gitops.weave.works/v1alpha1',
        kind: 'GitopsCluster',
        metadata: FLEET_EU,
        spec: { secretRef: { name: 'fleet-eu-kubeconfig' } },
      },
      NOW,
    );
    const document = pipelineDocument();
    await store.applyPipeline(document, resolvePipeline(document), NOW);
    // serve's logger: no format given, so text because the stream is a terminal.
    const logger = createConsoleLogger({ stream: terminal.stream, level: 'info' });
    const deps: ReceiverDeps = {
      store,
      queue: new EmbeddedQueue({ logger }),
      secrets: new StaticSecretSource([
        { key: { namespace: 'flux-system', name: 'podinfo-webhook' }, values: { 'hmac-key': WEBHOOK_KEY } },
      ]),
      masterKeys: () => Promise.resolve(MASTER_KEYS),
      logger,
      now: () => NOW,
    };
    server = await startHttpServer((request) => handleRequest(request, deps));
  });

  after(() => server?.close());

  const post = async (path: string, body: string, signature?: string): Promise<number> => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      body,
      headers: signature === undefined ? {} : { 'x-signature': signature },
    });
    await response.arrayBuffer();
    return response.status;
  };

  it('in path segments of every route, signed or not', async () => {
    terminal.written.length = 0;
    const statuses: number[] = [];
    for (const { encoded } of HOSTILE_SEGMENTS) {
      statuses.push(
        await post(`/v1/events/${encoded}/${encoded}`, '{}', 'sha256=00'),
        await post(`/v1/events/flux-system/${encoded}`, '{}'),
        await post(`/promotion/flux-system/${encoded}/${encoded}`, '{}', signatureHeader('{}', WEBHOOK_KEY)),
        await post(`/promotion/flux-system/podinfo/${encoded}`, '{}', signatureHeader('{}', WEBHOOK_KEY)),
        await post(`/approval/flux-system/podinfo/${encoded}/${encoded}`, '', signatureHeader('', WEBHOOK_KEY)),
        await post(`/approval/flux-system/podinfo/dev/${encoded}`, '', signatureHeader('', 'not-the-key')),
      );
    }
    // Not vacuous: the signed webhook calls got past the signature to the environment check (422), the others
    // were refused or not found, and each request was one log line.
    assert.ok(statuses.includes(422) && statuses.includes(401) && statuses.includes(404), String(statuses));
    const text = assertPrintable(terminal.written);
    assert.equal(text.split('\n').length - 1, statuses.length);
    for (const { escaped } of HOSTILE_SEGMENTS) assert.ok(shows(text, escaped), `${escaped} not in the log`);
  });

  it('in the fields of a correctly signed Flux event', async () => {
    terminal.written.length = 0;
    const clusterKey = deriveClusterKey(MASTER_KEYS.current, FLEET_EU);
    for (const [index, { raw }] of HOSTILE_TEXTS.entries()) {
      const event = JSON.stringify({
        involvedObject: { kind: index === 0 ? 'HelmRelease' : raw, namespace: 'apps', name: raw },
        severity: 'info',
        timestamp: '2025-10-01T12:00:05Z',
        message: `Helm upgrade ${raw}`,
        reason: raw,
        metadata: { revision: raw },
        reportingController: 'helm-controller',
      });
      assert.equal(await post('/v1/events/flux-system/fleet-eu', event, signatureHeader(event, clusterKey)), 202);
    }
    const text = assertPrintable(terminal.written);
    for (const { escaped } of HOSTILE_TEXTS) assert.ok(shows(text, escaped), `${escaped} not in the log`);
  });
});

describe('the console logger escapes control characters in every value it writes', () => {
  const hostile = 'a\u001b]0;owned\u0007b\u009b2J\u202ec\u2069';
  const expected = 'a\\u{1b}]0;owned\\u{7}b\\u{9b}2J\\u{202e}c\\u{2069}';
  const log = (format: 'json' | 'text') => {
    const terminal = fakeTerminal();
    const logger = createConsoleLogger({ stream: terminal.stream, format, level: 'debug' });
    logger.warn(`message ${hostile}`, {
      path: hostile,
      nested: { list: [hostile, 5], [hostile]: true },
      error: new Error(hostile),
    });
    return terminal.written;
  };

  it('on a terminal (text lines)', () => {
    const text = assertPrintable(log('text'));
    // The message and `path` as they are; the nested values (three) inside the JSON the text line shows them in.
    assert.equal(text.split(expected).length - 1, 2, text);
    assert.equal(text.split(JSON.stringify(expected).slice(1, -1)).length - 1, 3, text);
  });

  it('in JSON lines, where JSON.stringify escapes C0 but not C1 or bidi overrides', () => {
    const written = log('json');
    assertPrintable(written);
    const line = JSON.parse(written.join('')) as Record<string, unknown>;
    assert.equal(line.message, `message ${expected}`);
    assert.equal(line.path, expected);
    assert.deepEqual(line.nested, { list: [expected, 5], [expected]: true });
    assert.deepEqual(line.error, { name: 'Error', message: expected });
  });
});

describe("the demo's screen shows control characters escaped", () => {
  /** A stream standing in for process.stdout. */
  function output(tty: boolean) {
    const written: string[] = [];
    const out = { isTTY: tty, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream;
    return { written, out };
  }

  const lines = [
    { text: `flux-system/podinfo  (candidate 6.9.2\u202egnp)`, key: 'title' },
    { text: 'message', key: 'env', log: `prod: cannot read \u001b[2J\u0007` },
  ];

  it('off a terminal: view lines and activity lines as printed', () => {
    const { written, out } = output(false);
    const screen = new Screen(out, false);
    const activity = new Activity(screen);
    screen.start(['intro']);
    screen.render(lines);
    activity.add('controller', 'WARN request rejected path=/x\u001b[2J\u009b');
    activity.collect([{ at: NOW.toISOString(), message: '6.9.2\u202e approved', id: '1' }]);
    const text = assertPrintable(written);
    for (const escaped of ['6.9.2\\u{202e}gnp', '\\u{1b}[2J\\u{7}', 'path=/x\\u{1b}[2J\\u{9b}', '\\u{202e} approved']) {
      assert.ok(text.includes(escaped), `${escaped} not shown`);
    }
  });

  it('on a terminal: only the screen’s own sequences are raw', () => {
    const { written, out } = output(true);
    const screen = new Screen(out, true);
    const activity = new Activity(screen);
    activity.add('controller', 'WARN request rejected path=/x\u001b[2J\u009b');
    screen.render([...lines, ...activity.recent().map((text) => ({ text }))]);
    // What the screen draws with: home, erase to the end of line and of screen, the banner's colours.
    let own = written.join('');
    for (const sequence of ['\u001b[H', '\u001b[K', '\u001b[J', '\u001b[1;30;43m', '\u001b[0m']) {
      own = own.replaceAll(sequence, '');
    }
    assertPrintable([own]);
    assert.ok(own.includes('path=/x\\u{1b}[2J\\u{9b}'));
    assert.ok(own.includes('6.9.2\\u{202e}gnp'));
  });
});
