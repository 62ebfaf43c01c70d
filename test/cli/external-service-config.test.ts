// pipelinectl flux-config --external-service NS/PIPELINE ENV (docs/external-service.md): the Secret and Flux
// Operator ResourceSetInputProvider a user pipes into `kubectl apply -f -` on the leaf clusters of an environment
// promoted by external-service, parsed back; the example ResourceSets stay comments, so nothing else is applied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CliError } from '../../lib/cli/errors.js';
import { externalServiceConfig } from '../../lib/cli/operations/external-service-config.js';
import { deriveInputToken } from '../../lib/signing/hmac.js';
import { pipeline, storeBackend } from './fixtures.js';

const MASTER_KEY = 'external-service-master-key';
const PODINFO = { namespace: 'flux-system', name: 'podinfo' };
const URL = 'https://abc.lambda-url.eu-west-1.on.aws/';

/** The CLI tests' pipeline, prod promoted by external-service. */
const served = pipeline('apps').replace(
  '      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: prod } }]\n',
  '      targets: [{ namespace: apps, clusterRef: { kind: GitopsCluster, name: prod } }]\n' +
    '      promotion: { strategy: { external-service: {} } }\n',
);

const backendOf = (pipelineYaml: string) => storeBackend(pipelineYaml, MASTER_KEY);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  stringData?: { token: string };
  spec?: { type: string; url: string; secretRef: { name: string }; schedule?: { cron: string }[] };
}

describe('pipelinectl flux-config --external-service', () => {
  it('prints the Secret with the environment token and the provider that polls its inputs, nothing else to apply', async () => {
    const text = await externalServiceConfig(await backendOf(served), { pipeline: PODINFO, env: 'prod', url: URL });
    const documents = parseAllDocuments(text).map((document) => document.toJS() as Manifest);
    assert.deepEqual(
      documents.map((document) => document.kind),
      ['Secret', 'ResourceSetInputProvider'],
    );
    const [secret, provider] = documents;
    assert.deepEqual(secret?.metadata, { name: 'pipeline-controller-podinfo-prod', namespace: 'flux-system' });
    assert.equal(secret?.stringData?.token, deriveInputToken(MASTER_KEY, PODINFO, 'prod'));
    assert.equal(provider?.apiVersion, 'fluxcd.controlplane.io/v1');
    assert.deepEqual(provider?.spec, {
      type: 'ExternalService',
      url: 'https://abc.lambda-url.eu-west-1.on.aws/v1/inputs/flux-system/podinfo/prod',
      secretRef: { name: 'pipeline-controller-podinfo-prod' },
    });
    // The examples are comments: the version comes from the input, for a HelmRelease and an OCIRepository.
    assert.match(text, /^# +version: << inputs\.version \| quote >>$/m);
    assert.match(text, /^# +tag: << inputs\.version \| quote >>$/m);
    assert.match(text, /^# +- kind: ResourceSetInputProvider\n# +name: podinfo-prod$/m);
  });

  it('puts a schedule and another namespace where they are asked for', async () => {
    const text = await externalServiceConfig(await backendOf(served), {
      pipeline: PODINFO,
      env: 'prod',
      url: 'http://127.0.0.1:8080',
      namespace: 'apps',
      schedule: '0 9-16 * * 1-5',
    });
    const provider = parseAllDocuments(text)[1]?.toJS() as Manifest;
    assert.equal(provider.metadata.namespace, 'apps');
    assert.deepEqual(provider.spec?.schedule, [{ cron: '0 9-16 * * 1-5' }]);
    assert.equal(provider.spec?.url, 'http://127.0.0.1:8080/v1/inputs/flux-system/podinfo/prod');
  });

  it('refuses an environment that is not promoted by external-service, an unknown one and an unknown pipeline', async () => {
    const backend = await backendOf(served);
    const attempts: [Parameters<typeof externalServiceConfig>[1], RegExp][] = [
      [
        { pipeline: PODINFO, env: 'staging', url: URL },
        /staging of flux-system\/podinfo is not promoted by external-service \(its strategy: pull-request\)/,
      ],
      [{ pipeline: PODINFO, env: 'qa', url: URL }, /has no environment "qa" \(it has dev, staging, prod\)/],
      [
        { pipeline: { namespace: 'flux-system', name: 'nginx' }, env: 'prod', url: URL },
        /pipeline flux-system\/nginx is not stored/,
      ],
      [{ pipeline: PODINFO, env: 'prod', url: 'ftp://example.com' }, /--url/],
    ];
    for (const [options, message] of attempts) {
      await assert.rejects(externalServiceConfig(backend, options), (error: unknown) => {
        assert.ok(error instanceof CliError, String(error));
        assert.match(error.message, message);
        return true;
      });
    }
  });
});
