// A Git host whose error repeats the credential it was sent, end to end through `pipelinectl serve`: each host's fake
// (GitHub, GitLab, Bitbucket Server, Azure DevOps) answers every request 401 with a body that echoes the request's
// token, so each pipeline's promotion to prod fails for good. The credential is then searched for in everything a
// person or another system sees: the promotion record in the store, `status -o json`, `explain`, `history -o json`,
// `check` (table and JSON), the Slack messages, the signed news webhook's bodies and serve's log. It is in none of
// them; the `[REDACTED]` marker stands where the host's answer repeated it.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { loadOrCreateMasterKeys } from '../../lib/local/data-dir.js';
import { REDACTED } from '../../lib/logging/redaction.js';
import type { GitProviderType } from '../../lib/pipeline/promotion.js';
import { deriveClusterKey, signatureHeader } from '../../lib/signing/hmac.js';
import { clusterWithKubeconfigYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { FakeSlack } from '../../lib/testing/fake-slack.js';
import { runPipelinectl, startServe } from '../local/serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';
import { startAzureDevOpsUnderTest } from '../promotion/azure-devops-support.js';
import { startBitbucketServerUnderTest } from '../promotion/bitbucket-server-support.js';
import type { FakeHostUnderTest } from '../promotion/git-host-under-test.js';
import { startGitHubUnderTest } from '../promotion/github-support.js';
import { startGitLabUnderTest } from '../promotion/gitlab-support.js';
import { tempFiles } from '../support/temp-files.js';
import { helmReleaseEvent, helmReleaseRunning } from './flux.js';

const NAMESPACE = 'flux-system';
const MANAGEMENT = 'management';
const OLD = '6.0.0';
const NEW = '6.0.1';
/** Every request the fakes get in this test is answered with the echo. */
const ALWAYS = 100_000;

const HOSTS: { type: GitProviderType; short: string; flag: string; start: () => Promise<FakeHostUnderTest> }[] = [
  { type: 'github', short: 'github', flag: '--github-api-url', start: startGitHubUnderTest },
  { type: 'gitlab', short: 'gitlab', flag: '--gitlab-api-url', start: startGitLabUnderTest },
  {
    type: 'bitbucket-server',
    short: 'bitbucket',
    flag: '--bitbucket-server-api-url',
    start: startBitbucketServerUnderTest,
  },
  { type: 'azure-devops', short: 'azure', flag: '--azure-devops-api-url', start: startAzureDevOpsUnderTest },
];

const prodHelmRelease = (short: string, version: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: prod-${short}
spec:
  chart:
    spec:
      chart: podinfo
      version: "${version}" # {"$promotion": "flux-system:podinfo-${short}:prod"}
`;

/** A Secret's values, and the Basic credentials made of them (Azure DevOps: `:token`; a user name and password). */
function credentialsOf(values: Record<string, string>): string[] {
  const basic = (pair: string) => Buffer.from(pair, 'utf8').toString('base64');
  const { username, password } = values;
  return [
    ...Object.values(values).flatMap((value) => [value, basic(`:${value}`)]),
    ...(username !== undefined && password !== undefined ? [basic(`${username}:${password}`)] : []),
  ];
}

describe('a Git host that repeats the credential in its error, through pipelinectl serve', () => {
  it('leaves the credential out of the store, the CLI, Slack, the news webhook and the log', async (t) => {
    const weavePipeline = await readFile(
      join(import.meta.dirname, '..', 'fixtures', 'weave', 'gitlab', 'pipeline.yaml'),
      'utf8',
    );
    const kube = await new FakeKubeApi().start();
    t.after(() => kube.stop());
    const slack = await FakeSlack.start();
    t.after(() => slack.stop());
    const hosts: ((typeof HOSTS)[number] & { fake: FakeHostUnderTest; pipeline: string })[] = [];
    for (const host of HOSTS) {
      const fake = await host.start();
      t.after(() => fake.stop());
      fake.createRepository({ [`apps/prod-${host.short}/podinfo.yaml`]: prodHelmRelease(host.short, OLD) });
      fake.echoCredentialsNext(401, ALWAYS);
      for (const env of ['dev', 'prod']) kube.put(helmReleaseRunning(`${env}-${host.short}`, OLD));
      const pipeline = weavePipeline
        .replaceAll('gitlab', host.short)
        .replace(/type: "[a-z-]+"/, `type: "${host.type}"`)
        .replace(/url: "[^"]+"/, `url: "${fake.repositoryUrl}"`);
      hosts.push({ ...host, fake, pipeline });
    }
    /** What must appear nowhere: each host's credential values, and each as a Basic credential encodes it. */
    const secrets = hosts.flatMap((host) => credentialsOf(host.fake.secretValues).map((value) => ({ host, value })));
    const assertNoSecret = (where: string, text: string) => {
      for (const { host, value } of secrets) {
        assert.equal(text.includes(value), false, `${where} holds the ${host.type} credential:\n${text}`);
      }
    };

    const root = await tempFiles(t, {
      'config/cluster.yaml': clusterWithKubeconfigYaml(MANAGEMENT, kube.kubeconfig(), NAMESPACE),
      'config/credentials.yaml': yamlDocuments(
        ...hosts.map((host) => secretYaml(`${host.short}-promotion-credentials`, host.fake.secretValues, NAMESPACE)),
        secretYaml('slack', { url: slack.webhookUrl }, NAMESPACE),
        secretYaml('news-webhook', { url: `${slack.url}/hooks/news`, token: 'news-signing-key' }, NAMESPACE),
      ),
      'config/pipelines.yaml': yamlDocuments(...hosts.map((host) => host.pipeline)),
    });
    const dataDir = join(root, 'data');
    const hostFlags = hosts.flatMap((host) => [host.flag, host.fake.apiUrl]);
    const serve = await startServe(
      t,
      [
        ...['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1s'],
        ...['--default-cluster', `${NAMESPACE}/${MANAGEMENT}`],
        ...['--notify-slack-secret', `${NAMESPACE}/slack`, '--notify-webhook-secret', `${NAMESPACE}/news-webhook`],
        ...hostFlags,
      ],
      { timeoutMs: 30_000 },
    );

    // Flux upgrades dev: each pipeline's pull request for prod is refused by a 401 that repeats the token.
    const key = deriveClusterKey((await loadOrCreateMasterKeys(dataDir)).current, {
      namespace: NAMESPACE,
      name: MANAGEMENT,
    });
    for (const host of hosts) {
      const body = helmReleaseEvent(kube.put(helmReleaseRunning(`dev-${host.short}`, NEW)), NEW);
      const response = await fetch(`${serve.receiverUrl}/v1/events/${NAMESPACE}/${MANAGEMENT}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'gotk-component': 'helm-controller',
          'x-signature': signatureHeader(body, key),
        },
        body,
      });
      await response.arrayBuffer();
      assert.equal(response.status, 202);
    }

    // 1. The promotion records in the store: failed for good, the host's answer kept with the token replaced.
    const records = await waitFor('every promotion failed', async () => {
      const backend = await openLocalBackend(dataDir);
      try {
        const found = await Promise.all(
          hosts.map((host) =>
            backend.store.getPromotion({ namespace: NAMESPACE, name: `podinfo-${host.short}` }, 'prod', NEW),
          ),
        );
        return found.every((record) => record?.state === 'failed') ? found : undefined;
      } finally {
        await backend.close();
      }
    });
    for (const [index, record] of records.entries()) {
      const host = hosts[index];
      assert.ok(record?.error?.includes(REDACTED), `${host?.type}: the host's echo is in the record: ${record?.error}`);
      assertNoSecret(`the ${host?.type} promotion record`, JSON.stringify(record));
    }

    // 2. Slack and the signed news webhook were told of each failure.
    const posts = await waitFor('a failure message per pipeline on Slack and the webhook', () => {
      const bodies = slack.posts.map((post) => `${post.path} ${post.body}`);
      const told = (path: string, host: string) =>
        bodies.some((body) => body.startsWith(path) && body.includes(`podinfo-${host}`));
      return hosts.every((host) => told('/services/', host.short) && told('/hooks/news', host.short))
        ? bodies
        : undefined;
    });
    assert.ok(
      posts.some((body) => body.includes(REDACTED)),
      'the messages carry the redacted error',
    );
    assertNoSecret('the Slack and webhook messages', posts.join('\n'));

    // 3. Every CLI output.
    const cli = async (...args: string[]) => {
      const result = await runPipelinectl([...args, '--data-dir', dataDir], { timeoutMs: 30_000 });
      return `${result.stdout}${result.stderr}`;
    };
    const status = await cli('status', '-o', 'json');
    assert.ok(status.includes(REDACTED), status);
    assertNoSecret('status -o json', status);
    const history = await cli('history', '-o', 'json');
    assert.ok(history.includes(REDACTED), history);
    assertNoSecret('history -o json', history);
    for (const host of hosts) {
      for (const output of ['text', 'json']) {
        assertNoSecret(
          `explain -o ${output}`,
          await cli('explain', `${NAMESPACE}/podinfo-${host.short}`, '-o', output),
        );
      }
    }
    // check asks every host again, and each answers with the echo.
    for (const output of ['table', 'json']) {
      const checked = await cli('check', '-o', output, ...hostFlags);
      assert.ok(checked.includes(REDACTED), checked);
      assertNoSecret(`check -o ${output}`, checked);
    }

    // 4. serve's log, to its last line.
    const stopped = await serve.stop('SIGTERM');
    assert.equal(stopped.code, 0, stopped.stderr);
    assertNoSecret("serve's log", `${stopped.stdout}${stopped.stderr}`);
  });
});
