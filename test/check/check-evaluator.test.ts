// What `pipelinectl check` evaluates a verification check with (lib/cli/operations/check.ts): the verifier's own
// evaluators, the caller's Secrets read by name in the pipeline's namespace, against real services (here the fakes).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verificationCheckEvaluator } from '../../lib/cli/operations/check.js';
import { KubernetesClusterReader } from '../../lib/clusters/index.js';
import type { Pipeline } from '../../lib/pipeline/model.js';
import type { VerificationCheck } from '../../lib/pipeline/verification.js';
import { FakeHttpTarget } from '../../lib/testing/fake-http-target.js';

const pipeline: Pipeline = {
  namespace: 'team-a',
  name: 'web',
  appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'web' },
  environments: [{ name: 'staging', targets: [] }],
};
const [staging] = pipeline.environments;

describe("check's evaluation of a verification check", () => {
  let service: FakeHttpTarget;
  const asked: string[] = [];
  const evaluate = () =>
    verificationCheckEvaluator(
      new KubernetesClusterReader({ getCluster: () => Promise.resolve(undefined), secrets }),
      secrets,
    );
  const secrets = {
    getSecret: ({ namespace, name }: { namespace: string; name: string }) => {
      asked.push(`${namespace}/${name}`);
      return Promise.resolve(name === 'probe' ? { token: 'probe-token' } : undefined);
    },
  };
  const http = (name: string, path: string, secret?: string): VerificationCheck => ({
    name,
    http: {
      url: `${service.url}${path}`,
      allowInsecureLoopback: true,
      ...(secret ? { secretRef: { name: secret } } : {}),
    },
  });

  before(async () => {
    service = await FakeHttpTarget.start();
    service.route('/healthz', { status: 200, body: 'ok' }).route('/broken', { status: 503 });
  });
  after(() => service.stop());

  it("answers as the verifier would, with the Secret it names read in the pipeline's namespace", async () => {
    assert.ok(staging);
    const passed = await evaluate()(pipeline, staging, http('smoke', '/healthz', 'probe'));
    assert.deepEqual([passed.verdict, passed.reason, passed.value], ['passed', 'AsExpected', 'HTTP 200']);
    assert.equal(service.requests.at(-1)?.headers.authorization, 'Bearer probe-token');
    assert.deepEqual(asked, ['team-a/probe']);
    const failed = await evaluate()(pipeline, staging, http('broken', '/broken'));
    assert.deepEqual([failed.verdict, failed.value], ['failed', 'HTTP 503']);
  });

  it('a Secret that does not exist: not evaluable, and nothing is sent', async () => {
    assert.ok(staging);
    const before = service.requests.length;
    const missing = await evaluate()(pipeline, staging, http('smoke', '/healthz', 'nope'));
    assert.deepEqual([missing.verdict, missing.reason], ['inconclusive', 'SecretMissing']);
    assert.equal(service.requests.length, before);
  });
});
