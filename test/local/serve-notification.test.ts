// Notification promotions in the local mode, as a user runs it: `pipelinectl serve` with a webhook sink (its URL from
// the same variable the verifier Lambda reads, its key from a Secret of the configuration) POSTs the signed Flux
// event when dev's new version is to reach prod; `pipelinectl apply` warns about a notification pipeline when the
// running serve has no sink, and says it cannot tell when no serve runs.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openLocalBackend } from '../../lib/cli/backends/local.js';
import { readServeInfo } from '../../lib/local/data-dir.js';
import { clusterWithKubeconfigYaml, pipelineYaml, secretYaml, yamlDocuments } from '../../lib/testing/config-yaml.js';
import { FakeKubeApi } from '../../lib/testing/fake-kube-api.js';
import { deployedHelmRelease as deployed } from '../fixtures/flux-objects.js';
import { startLocalServer } from '../promotion/notification-servers.js';
import { tempFiles } from '../support/temp-files.js';
import { runPipelinectl, startServe } from './serve-process.js';
import { waitFor } from '../../lib/testing/wait-for.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };
const WEBHOOK_KEY = 'webhook-signing-key';

/** Cluster fleet, a Secret with the webhook's key, and Pipeline podinfo: dev → prod, promoted by notification. */
function configFiles(kubeconfig: string): Record<string, string> {
  return {
    'config/fleet.yaml': yamlDocuments(
      clusterWithKubeconfigYaml('fleet', kubeconfig),
      pipelineYaml({
        name: 'podinfo',
        environments: ['dev', 'prod'].map((env) => ({ name: env, targets: [{ namespace: env, cluster: 'fleet' }] })),
        strategy: 'notification',
      }),
    ),
    'config/webhook.yaml': secretYaml('webhook-signing', { token: WEBHOOK_KEY }),
  };
}

async function fleet(t: { after(fn: () => unknown): void }): Promise<FakeKubeApi> {
  const kube = await new FakeKubeApi().start();
  t.after(() => kube.stop());
  kube.put(deployed('6.9.1', 'dev'));
  kube.put(deployed('6.9.1', 'prod'));
  return kube;
}

describe('pipelinectl serve: notification promotions', () => {
  it('POSTs the signed promotion event to the webhook sink, and apply has nothing to warn about', async (t) => {
    const kube = await fleet(t);
    const hooks = await startLocalServer(() => ({ status: 202 }));
    t.after(() => hooks.stop());
    const root = await tempFiles(t, configFiles(kube.kubeconfig()));
    const dataDir = join(root, 'data');
    const serve = await startServe(
      t,
      [
        ...['--config', join(root, 'config'), '--data-dir', dataDir, '--port', '0', '--poll-interval', '1s'],
        ...['--notification-webhook-secret', 'flux-system/webhook-signing'],
      ],
      { env: { NOTIFICATION_WEBHOOK_URL: `${hooks.url}/hooks/promotions` } },
    );
    assert.deepEqual((await readServeInfo(dataDir))?.notificationSinks, ['webhook']);

    kube.put(deployed('6.9.2', 'dev'));
    const request = await waitFor('the promotion event', () => hooks.received[0]);
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/hooks/promotions');
    const signature = `sha256=${createHmac('sha256', WEBHOOK_KEY).update(request.body).digest('hex')}`;
    assert.equal(request.headers['x-signature'], signature);
    const event = JSON.parse(request.body.toString('utf8')) as { message: string; metadata: Record<string, string> };
    assert.equal(event.message, 'Promote pipeline flux-system/podinfo to prod with version 6.9.2');
    assert.equal(event.metadata.environment, 'prod');
    assert.equal(event.metadata.version, '6.9.2');

    const backend = await openLocalBackend(dataDir);
    t.after(() => backend.close());
    await waitFor('the succeeded promotion record', async () => {
      const record = await backend.store.getPromotion(PIPELINE, 'prod', '6.9.2');
      return record?.state === 'succeeded';
    });

    const applied = await runPipelinectl(['apply', '-f', join(root, 'config'), '--data-dir', dataDir]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.doesNotMatch(applied.stderr, /notification/);

    const stopped = await serve.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
  });

  it('apply warns when the running serve has no sink, and cannot tell when no serve runs', async (t) => {
    const kube = await fleet(t);
    const root = await tempFiles(t, configFiles(kube.kubeconfig()));
    const dataDir = join(root, 'data');
    const config = join(root, 'config');
    const serve = await startServe(t, ['--config', config, '--data-dir', dataDir, '--port', '0']);
    assert.ok(
      serve.logLines().some((line) => line.level === 'warn' && String(line.message).includes('no notification sink')),
      'serve says so when it starts',
    );

    const running = await runPipelinectl(['apply', '-f', config, '--data-dir', dataDir]);
    assert.equal(running.code, 0, running.stderr);
    assert.match(running.stdout, /^pipeline flux-system\/podinfo unchanged$/m, 'applied all the same');
    assert.match(
      running.stderr,
      new RegExp(
        '^warning: .*fleet\\.yaml:\\d+:\\d+: Pipeline flux-system/podinfo: spec\\.promotion\\.strategy\\.notification: ' +
          'environment prod is promoted by notification, but local data directory .* \\(serve running at .*\\) has ' +
          'no notification sink: each such promotion will fail for good \\(pipelinectl serve must be started with ' +
          '--notification-webhook-url, --notification-controller-url or --notification-event-bus\\)$',
        'm',
      ),
    );

    const stopped = await serve.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    const offline = await runPipelinectl(['apply', '-f', config, '--data-dir', dataDir]);
    assert.equal(offline.code, 0, offline.stderr);
    assert.match(
      offline.stderr,
      /^warning: .*: spec\.promotion\.strategy\.notification: environment prod is promoted by notification; cannot tell whether a notification sink is configured \(pipelinectl serve is not running\)/m,
    );
  });
});
