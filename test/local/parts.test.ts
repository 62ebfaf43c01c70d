// The pieces of the local mode and of `serve`, in process: flag parsing, the console logger, the message route, the
// Secrets of the data directory, and startLocalMode's start and stop.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseServeFlags } from '../../lib/cli/commands/serve.js';
import { CliError } from '../../lib/cli/errors.js';
import { parseDuration, parseObjectKey, parsePort } from '../../lib/cli/flags.js';
import { loadConfigurationText } from '../../lib/config/index.js';
import { signatureHeader } from '../../lib/signing/hmac.js';
import type { HttpRequest } from '../../lib/http/types.js';
import { readServeInfo, readSecrets, writeSecrets } from '../../lib/local/data-dir.js';
import { handleLocalMessage, isLoopbackAddress, LOCAL_MESSAGES_PATH } from '../../lib/local/messages-route.js';
import { startLocalMode } from '../../lib/local/mode.js';
import { DataDirSecretSource, LayeredSecretSource, secretPurposes } from '../../lib/local/secrets.js';
import { createConsoleLogger } from '../../lib/logging/console-logger.js';
import { encodeMessage, type QueueMessage } from '../../lib/queue/messages.js';
import { StaticSecretSource } from '../../lib/secrets/port.js';
import {
  clusterWithKubeconfigYaml,
  gitopsClusterYaml,
  pipelineYaml,
  yamlDocuments,
} from '../../lib/testing/config-yaml.js';
import { formatDuration } from '../../lib/util/duration.js';
import { tempFiles } from '../support/temp-files.js';
import { silentLogger } from '../../lib/logging/logger.js';

describe('serve flags', () => {
  it('parses durations, ports and object keys', () => {
    assert.equal(parseDuration('30s', '--poll-interval'), 30_000);
    assert.equal(parseDuration('5m', '--poll-interval'), 300_000);
    assert.equal(parseDuration('1h', '--poll-interval'), 3_600_000);
    assert.equal(parseDuration('1h30m', '--poll-interval'), 5_400_000);
    assert.equal(parseDuration('1500ms', '--poll-interval'), 1500);
    assert.equal(formatDuration(5_400_000), '1h30m');
    assert.equal(parsePort('0'), 0);
    assert.equal(parsePort('8080'), 8080);
    assert.deepEqual(parseObjectKey('flux-system/dev', '--default-cluster'), { namespace: 'flux-system', name: 'dev' });
    assert.deepEqual(parseObjectKey('dev', '--default-cluster'), { namespace: 'default', name: 'dev' });
  });

  it('applies the defaults', () => {
    assert.deepEqual(
      parseServeFlags({ config: 'config', port: '8080', host: '127.0.0.1', dataDir: '.data', pollInterval: '5m' }),
      {
        configDir: 'config',
        dataDir: '.data',
        port: 8080,
        host: '127.0.0.1',
        pollIntervalMs: 300_000,
        defaultCluster: undefined,
        githubApiUrl: undefined,
      },
    );
  });

  it('refuses bad values with one line naming the flag', () => {
    const base = { config: 'c', port: '0', host: '127.0.0.1', dataDir: '.data', pollInterval: '5m' };
    const cases: [Partial<typeof base> & { defaultCluster?: string; githubApiUrl?: string }, string][] = [
      [{ port: 'http' }, '--port must be a whole number from 0 to 65535 (got "http")'],
      [{ port: '70000' }, '--port must be a whole number from 0 to 65535 (got "70000")'],
      [{ port: '-1' }, '--port must be a whole number from 0 to 65535 (got "-1")'],
      [{ host: 'a host' }, '--host must be a host name or an IP address such as 127.0.0.1 (got "a host")'],
      [{ pollInterval: '5' }, '--poll-interval must be a duration such as 30s, 5m or 1h (got "5")'],
      [{ pollInterval: '5x' }, '--poll-interval must be a duration such as 30s, 5m or 1h (got "5x")'],
      [{ pollInterval: '500ms' }, '--poll-interval must be from 1s to 24h (got "500ms")'],
      [{ pollInterval: '25h' }, '--poll-interval must be from 1s to 24h (got "25h")'],
      [
        { defaultCluster: 'a/b/c' },
        '--default-cluster must be NAMESPACE/NAME in lowercase letters, digits, "-" and "." (got "a/b/c")',
      ],
      [
        { defaultCluster: 'Flux/Dev' },
        '--default-cluster must be NAMESPACE/NAME in lowercase letters, digits, "-" and "." (got "Flux/Dev")',
      ],
      [{ githubApiUrl: 'ftp://x' }, '--github-api-url must be an http:// or https:// URL (got "ftp://x")'],
      [{ config: ' ' }, '--config must name a file or directory'],
    ];
    for (const [flags, message] of cases) {
      assert.throws(
        () => parseServeFlags({ ...base, ...flags }),
        (error: unknown) => error instanceof CliError && error.message === message && !message.includes('\n'),
        message,
      );
    }
  });
});

describe('the console logger', () => {
  const capture = (isTTY: boolean) => {
    const lines: string[] = [];
    const stream = { isTTY, write: (text: string) => lines.push(text) };
    return { lines, stream };
  };
  const at = () => new Date('2026-11-21T12:00:05Z');

  it('writes JSON lines off a terminal, without credentials', () => {
    const { lines, stream } = capture(false);
    const logger = createConsoleLogger({ stream, now: at, level: 'info' });
    logger.debug('hidden');
    logger.info('promotion succeeded', {
      pipeline: 'flux-system/podinfo',
      token: 'ghp_secret',
      nested: { 'hmac-key': 'k', kubeconfig: 'apiVersion: v1', ok: 1 },
      error: new Error('boom'),
      message: 'an attribute named like a field',
    });
    assert.equal(lines.length, 1);
    assert.deepEqual(JSON.parse(lines[0] ?? ''), {
      time: '2026-11-21T12:00:05.000Z',
      level: 'info',
      message: 'promotion succeeded',
      pipeline: 'flux-system/podinfo',
      token: '[redacted]',
      nested: { 'hmac-key': '[redacted]', kubeconfig: '[redacted]', ok: 1 },
      error: { name: 'Error', message: 'boom' },
      _message: 'an attribute named like a field',
    });
    assert.ok(!lines[0]?.includes('ghp_secret'));
  });

  it('writes short readable lines on a terminal', () => {
    const { lines, stream } = capture(true);
    const logger = createConsoleLogger({ stream, now: at, level: 'debug' });
    logger.info('applied', { kind: 'Pipeline', name: 'flux-system/podinfo' });
    logger.warn('cannot read target', { reason: 'cluster unreachable', password: 'p' });
    logger.debug('enqueued polls', { polls: 2 });
    assert.equal(lines.length, 3);
    assert.match(lines[0] ?? '', /^\d\d:\d\d:\d\d applied kind=Pipeline name=flux-system\/podinfo\n$/);
    assert.match(
      lines[1] ?? '',
      /^\d\d:\d\d:\d\d WARN cannot read target reason="cluster unreachable" password=\[redacted\]\n$/,
    );
    assert.match(lines[2] ?? '', /^\d\d:\d\d:\d\d DEBUG enqueued polls polls=2\n$/);
  });
});

describe('the message route', () => {
  const KEY = 'master-key';
  const message: QueueMessage = {
    type: 'poll',
    cluster: { namespace: 'flux-system', name: 'dev' },
    kind: 'HelmRelease',
  };
  const setup = () => {
    const sent: QueueMessage[] = [];
    const deps = {
      queue: { send: (m: QueueMessage) => Promise.resolve(void sent.push(m)) },
      masterKey: () => Promise.resolve(KEY),
      logger: silentLogger,
    };
    const request = (body: string, options: Partial<HttpRequest> & { signature?: string } = {}): HttpRequest => ({
      method: 'POST',
      path: LOCAL_MESSAGES_PATH,
      headers: options.signature === undefined ? {} : { 'x-signature': options.signature },
      body: Buffer.from(body),
      remoteAddress: '127.0.0.1',
      ...options,
    });
    return { sent, deps, request };
  };

  it('enqueues a message signed with the master key, from loopback', async () => {
    const { sent, deps, request } = setup();
    const body = encodeMessage(message);
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const response = await handleLocalMessage(
        request(body, { signature: signatureHeader(body, KEY), remoteAddress }),
        deps,
      );
      assert.equal(response.statusCode, 202);
    }
    assert.deepEqual(sent, [message, message, message]);
  });

  it('refuses other peers, methods, signatures and bodies, and enqueues nothing', async () => {
    const { sent, deps, request } = setup();
    const body = encodeMessage(message);
    const signed = signatureHeader(body, KEY);
    const invalid = JSON.stringify({ v: 1, type: 'poll' });
    const cases: [HttpRequest, number][] = [
      [request(body, { signature: signed, remoteAddress: '10.0.0.7' }), 403],
      [request(body, { signature: signed, remoteAddress: undefined }), 403],
      [request(body, { signature: signed, method: 'GET' }), 405],
      [request(body), 401],
      [request(body, { signature: signatureHeader(body, 'other') }), 401],
      [request(body, { signature: 'sha256=zz' }), 401],
      [request(`${body} `, { signature: signed }), 401],
      [request(invalid, { signature: signatureHeader(invalid, KEY) }), 400],
      [request('not json', { signature: signatureHeader('not json', KEY) }), 400],
    ];
    for (const [req, status] of cases) {
      const response = await handleLocalMessage(req, deps);
      assert.equal(response.statusCode, status, JSON.stringify({ ...req, body: req.body.toString() }));
      assert.ok(!response.body?.includes('flux-system'), 'the answer repeats nothing of the request');
    }
    assert.deepEqual(sent, []);
    assert.equal(isLoopbackAddress('127.8.9.10'), true);
    assert.equal(isLoopbackAddress('128.0.0.1'), false);
  });
});

describe('local Secrets', () => {
  it('reads secrets.json again when it changes, under the Secrets given in memory', async (t) => {
    const dataDir = await tempFiles(t, {});
    const fromFile = new DataDirSecretSource(dataDir);
    const key = { namespace: 'flux-system', name: 'github' };
    assert.equal(await fromFile.getSecret(key), undefined);
    await writeSecrets(dataDir, { 'flux-system/github': { values: { token: 'one' }, purposes: ['git-credentials'] } });
    assert.deepEqual(await fromFile.getSecret(key), { token: 'one' });
    await writeSecrets(dataDir, { 'flux-system/github': { values: { token: 'two' }, purposes: ['git-credentials'] } });
    assert.deepEqual(await fromFile.getSecret(key), { token: 'two' }, 'an apply while serve runs takes effect');

    const layered = new LayeredSecretSource([new StaticSecretSource([{ key, values: { token: 'given' } }]), fromFile]);
    assert.deepEqual(await layered.getSecret(key), { token: 'given' });
    assert.equal(await layered.getSecret({ namespace: 'flux-system', name: 'other' }), undefined);
  });

  it('tags each Secret with what references it', () => {
    const pipeline = pipelineYaml({
      name: 'web',
      namespace: 'apps',
      environments: [
        { name: 'dev', targets: [{ namespace: 'web', cluster: 'dev' }] },
        {
          name: 'prod',
          targets: [{ namespace: 'web', cluster: 'prod' }],
          strategy: { url: 'https://github.com/acme/fleet', tokenSecret: 'git' },
        },
      ],
      strategy: 'notification',
      hmacSecret: 'hmac',
    });
    const result = loadConfigurationText(
      yamlDocuments(
        pipeline,
        gitopsClusterYaml('dev', { namespace: 'apps' }),
        `apiVersion: gitops.weave.works/v1alpha1
kind: GitopsCluster
metadata: {name: prod, namespace: apps}
spec: {capiClusterRef: {name: prod}}
`,
      ),
      'config.yaml',
      {
        known: {
          secrets: [
            { namespace: 'apps', name: 'git', keys: ['token'] },
            { namespace: 'apps', name: 'hmac', keys: ['hmac-key'] },
            { namespace: 'apps', name: 'dev-kubeconfig', keys: ['value'] },
            { namespace: 'apps', name: 'prod-kubeconfig', keys: ['value'] },
          ],
        },
      },
    );
    assert.ok(result.ok, JSON.stringify(!result.ok && result.problems));
    const purposes = secretPurposes(result.configuration);
    assert.deepEqual(Object.fromEntries([...purposes].map(([name, set]) => [name, [...set]])), {
      'apps/hmac': ['webhook-hmac'],
      'apps/git': ['git-credentials'],
      'apps/dev-kubeconfig': ['kubeconfig'],
      'apps/prod-kubeconfig': ['kubeconfig'],
    });
  });
});

describe('startLocalMode', () => {
  it('writes serve.json, polls on demand, and stops once, cleanly', async (t) => {
    const root = await tempFiles(t, {
      'config/cluster.yaml': clusterWithKubeconfigYaml('dev', 'apiVersion: v1\nkind: Config\n'),
    });
    const dataDir = join(root, 'data');
    const mode = await startLocalMode({
      configDir: join(root, 'config'),
      dataDir,
      port: 0,
      host: '0.0.0.0',
      pollIntervalMs: 3_600_000,
      logger: silentLogger,
    });
    t.after(() => mode.stop());
    assert.match(mode.receiverUrl, /^http:\/\/127\.0\.0\.1:\d+$/, 'a wildcard address is published as loopback');
    const info = await readServeInfo(dataDir);
    assert.equal(info?.pid, process.pid);
    assert.equal(info.receiverUrl, mode.receiverUrl);
    assert.equal((await fetch(`${mode.receiverUrl}/healthz`)).status, 200);
    assert.equal((await mode.store.getCluster({ namespace: 'flux-system', name: 'dev' }))?.generation, 1);
    assert.deepEqual((await readSecrets(dataDir))['flux-system/dev-kubeconfig']?.purposes, ['kubeconfig']);
    await mode.poll();

    // A second start in the same process: the data directory is in use.
    await assert.rejects(
      startLocalMode({ configDir: join(root, 'config'), dataDir, port: 0, pollIntervalMs: 1000, logger: silentLogger }),
      /the data directory .* is in use/,
    );
    assert.equal((await readServeInfo(dataDir))?.receiverUrl, mode.receiverUrl, 'the failed start left serve.json');

    await Promise.all([mode.stop(), mode.stop()]);
    await mode.stop();
    assert.equal(existsSync(join(dataDir, 'serve.json')), false);
    await assert.rejects(fetch(`${mode.receiverUrl}/healthz`));
  });
});
