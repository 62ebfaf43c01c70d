// pipelinectl flux-config for every Flux 2.x release and for a Flux locked down for multi-tenancy: the objects a
// user pipes into `kubectl apply -f -`, parsed back and checked against what that Flux release serves
// (docs/cli.md, "flux-config"). The action runs on the in-memory store; the flags run through the CLI itself.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import type { Backend } from '../../lib/cli/backend.js';
import { CliError } from '../../lib/cli/errors.js';
import { fluxConfig, parseFluxVersion, type FluxConfigOptions } from '../../lib/cli/operations/flux-config.js';
import { deriveClusterKey } from '../../lib/signing/hmac.js';
import { writeFiles } from '../support/temp-files.js';
import { CLUSTERS, pipeline, SECRETS, storeBackend } from './fixtures.js';
import { runCli } from '../support/pipelinectl.js';

const MASTER_KEY = 'flux-config-master-key';
const PROD = { namespace: 'flux-system', name: 'prod' };
const URL = 'https://abc.lambda-url.eu-west-1.on.aws/';
const ADDRESS = 'https://abc.lambda-url.eu-west-1.on.aws/v1/events/flux-system/prod';
const V1BETA2 = 'notification.toolkit.fluxcd.io/v1beta2';
const V1BETA3 = 'notification.toolkit.fluxcd.io/v1beta3';

// The spec fields each API version takes in every Flux release that serves it (notification-controller's CRDs),
// narrowed to what flux-config may write: v1beta2's Alert `eventMetadata` (not in Flux 2.0) and `inclusionList` are
// left out, and so are the Provider's `interval` (ignored by v1beta3) and the Alert's `summary` (deprecated there).
const SPEC_FIELDS: Record<string, { Provider: string[]; Alert: string[] }> = {
  [V1BETA2]: {
    Provider: [
      'type',
      'interval',
      'channel',
      'username',
      'address',
      'timeout',
      'proxy',
      'secretRef',
      'certSecretRef',
      'suspend',
    ],
    Alert: ['providerRef', 'eventSeverity', 'eventSources', 'exclusionList', 'summary', 'suspend'],
  },
  [V1BETA3]: {
    Provider: ['type', 'channel', 'username', 'address', 'timeout', 'proxy', 'secretRef', 'certSecretRef', 'suspend'],
    Alert: [
      'providerRef',
      'eventSeverity',
      'eventSources',
      'inclusionList',
      'eventMetadata',
      'exclusionList',
      'suspend',
    ],
  },
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string };
  type?: string;
  stringData?: { token: string };
  spec?: Record<string, unknown> & {
    type?: string;
    address?: string;
    secretRef?: { name: string };
    providerRef?: { name: string };
    eventSeverity?: string;
    eventSources?: { kind: string; name: string; namespace: string }[];
  };
}

/** Each document of the output, parsed, with the comment above it (the parser keeps one after `---` on its contents). */
function parse(text: string): { manifest: Manifest; comment: string }[] {
  return parseAllDocuments(text).map((document) => {
    assert.deepEqual(document.errors, []);
    const contents = document.contents as { commentBefore?: string | null } | null;
    const comment = [document.commentBefore, contents?.commentBefore].filter(Boolean).join('\n');
    return { manifest: document.toJS() as Manifest, comment };
  });
}

/** Checks one Secret, Provider and Alert in `namespace` against `apiVersion`, the Alert watching `watched`. */
function assertTrio(
  documents: readonly Manifest[],
  apiVersion: string,
  namespace: string,
  watched: readonly string[],
): void {
  const [secret, provider, alert] = documents;
  assert.ok(secret && provider && alert);
  assert.deepEqual(Object.keys(secret).sort(), ['apiVersion', 'kind', 'metadata', 'stringData', 'type']);
  assert.equal(secret.apiVersion, 'v1');
  assert.equal(secret.kind, 'Secret');
  assert.equal(secret.metadata.namespace, namespace);
  assert.equal(secret.stringData?.token, deriveClusterKey(MASTER_KEY, PROD));

  for (const object of [provider, alert]) {
    assert.equal(object.apiVersion, apiVersion);
    assert.deepEqual(Object.keys(object).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.equal(object.metadata.namespace, namespace);
    const kind = object.kind as 'Provider' | 'Alert';
    const allowed = SPEC_FIELDS[apiVersion]?.[kind];
    const extra = Object.keys(object.spec ?? {}).filter((field) => !allowed?.includes(field));
    assert.deepEqual(extra, [], `${kind} ${apiVersion} fields`);
  }
  assert.equal(provider.kind, 'Provider');
  assert.equal(provider.spec?.type, 'generic-hmac');
  assert.equal(provider.spec?.address, ADDRESS);
  assert.equal(provider.spec?.secretRef?.name, secret.metadata.name);
  assert.equal(alert.kind, 'Alert');
  assert.equal(alert.spec?.providerRef?.name, provider.metadata.name);
  assert.equal(alert.spec?.eventSeverity, 'info');
  assert.deepEqual(
    alert.spec?.eventSources,
    watched.flatMap((ns) => [
      { kind: 'HelmRelease', name: '*', namespace: ns },
      { kind: 'Kustomization', name: '*', namespace: ns },
    ]),
  );
}

/** The CLI tests' pipeline with a source: the ImagePolicy flux-system/podinfo on `cluster`. */
const withSource = (cluster: string) =>
  pipeline('apps').replace(
    '  environments:',
    `  source: { kind: ImagePolicy, name: podinfo, namespace: flux-system, clusterRef: { kind: GitopsCluster, name: ${cluster} } }\n  environments:`,
  );

/** A backend over the in-memory store holding the CLI tests' clusters and pipeline (prod: apps, apps-staging). */
const backendWithPipeline = (pipelineYaml = pipeline('apps')) => storeBackend(pipelineYaml, MASTER_KEY);

describe("pipelinectl flux-config: a pipeline's source", () => {
  const IMAGE_POLICY = { kind: 'ImagePolicy', name: 'podinfo', namespace: 'flux-system' };
  const alertOf = (text: string) => parse(text).find((d) => d.manifest.kind === 'Alert');

  it('the Alert of the cluster the source is on names it, beside the app namespaces', async () => {
    const backend = await backendWithPipeline(withSource('prod'));
    const alert = alertOf(await fluxConfig(backend, { cluster: PROD, url: URL }));
    assert.deepEqual(alert?.manifest.spec?.eventSources?.at(-1), IMAGE_POLICY);
    assert.equal(alert?.manifest.spec?.eventSources?.length, 5, 'apps and apps-staging, then the ImagePolicy');
    assert.match(alert?.comment ?? '', /the pipelines' sources: ImagePolicy flux-system\/podinfo/);
  });

  it('a cluster with only the source gets an Alert for it alone (also per namespace)', async () => {
    const backend = await backendWithPipeline(withSource('spare'));
    const spare = { namespace: 'flux-system', name: 'spare' };
    const alert = alertOf(await fluxConfig(backend, { cluster: spare, url: URL }));
    assert.deepEqual(alert?.manifest.spec?.eventSources, [IMAGE_POLICY]);
    const perNamespace = parse(await fluxConfig(backend, { cluster: spare, url: URL, perNamespace: true }));
    assert.deepEqual(
      perNamespace.map((d) => `${d.manifest.kind} ${d.manifest.metadata.namespace}`),
      ['Secret flux-system', 'Provider flux-system', 'Alert flux-system'],
    );
    assert.deepEqual(perNamespace[2]?.manifest.spec?.eventSources, [IMAGE_POLICY]);
  });
});

describe('pipelinectl flux-config', () => {
  let backend: Backend;
  before(async () => {
    backend = await backendWithPipeline();
  });
  const run = (options: Partial<FluxConfigOptions> = {}) =>
    fluxConfig(backend, { cluster: PROD, url: URL, ...options });

  describe("the Provider and Alert in the API version the cluster's Flux serves", () => {
    const releases: [string, string][] = [
      ['2.0', V1BETA2],
      ['2.1', V1BETA2],
      ['2.1.6', V1BETA2],
      ['2.2', V1BETA3],
      ['2.3', V1BETA3],
      ['2.4', V1BETA3],
      ['2.5', V1BETA3],
      ['2.6', V1BETA3],
      ['2.7', V1BETA3],
      ['v2.8.3', V1BETA3],
      ['2.8', V1BETA3],
      ['2.9', V1BETA3],
    ];
    for (const [version, apiVersion] of releases) {
      it(`Flux ${version}: ${apiVersion}, only fields that version takes`, async () => {
        const documents = parse(await run({ fluxVersion: parseFluxVersion(version) }));
        assertTrio(
          documents.map((d) => d.manifest),
          apiVersion,
          'flux-system',
          ['apps', 'apps-staging'],
        );
        assert.match(documents[0]?.comment ?? '', new RegExp(`${apiVersion.replace(/\./g, '\\.')}`));
      });
    }

    it('without --flux-version: the current release, v1beta3', async () => {
      const text = await run();
      assert.equal(text, await run({ fluxVersion: parseFluxVersion('2.9') }));
      assertTrio(
        parse(text).map((d) => d.manifest),
        V1BETA3,
        'flux-system',
        ['apps', 'apps-staging'],
      );
    });

    it('the Secret tells to keep the token in SOPS or External Secrets, not in Git as it is', async () => {
      const [secret] = parse(await run());
      assert.match(secret?.comment ?? '', /SOPS/);
      assert.match(secret?.comment ?? '', /External Secrets/);
      assert.match(secret?.comment ?? '', /Git/);
    });

    it('--namespaces replaces the namespaces the stored pipelines use', async () => {
      const documents = parse(await run({ fluxVersion: parseFluxVersion('2.1'), namespaces: ['team-b', 'apps'] }));
      assertTrio(
        documents.map((d) => d.manifest),
        V1BETA2,
        'flux-system',
        ['apps', 'team-b'],
      );
    });
  });

  describe('--no-cross-namespace-refs: one Secret, Provider and Alert in each app namespace', () => {
    for (const [version, apiVersion] of [
      ['2.0', V1BETA2],
      ['2.8', V1BETA3],
    ] as const) {
      it(`Flux ${version}: each Alert watches only its own namespace`, async () => {
        const documents = parse(await run({ fluxVersion: parseFluxVersion(version), perNamespace: true }));
        const manifests = documents.map((d) => d.manifest);
        assert.deepEqual(
          manifests.map((m) => `${m.kind} ${m.metadata.namespace}/${m.metadata.name}`),
          [
            'Secret apps/pipeline-controller',
            'Provider apps/pipeline-controller',
            'Alert apps/pipeline-controller',
            'Secret apps-staging/pipeline-controller',
            'Provider apps-staging/pipeline-controller',
            'Alert apps-staging/pipeline-controller',
          ],
        );
        assertTrio(manifests.slice(0, 3), apiVersion, 'apps', ['apps']);
        assertTrio(manifests.slice(3), apiVersion, 'apps-staging', ['apps-staging']);
        assert.match(documents[0]?.comment ?? '', /only receives events from objects in its own namespace/);
        for (const secret of [documents[0], documents[3]]) assert.match(secret?.comment ?? '', /SOPS/);
      });
    }

    it('a cluster no stored pipeline uses, without --namespaces: an error naming the flag', async () => {
      await assert.rejects(
        fluxConfig(backend, { cluster: { namespace: 'flux-system', name: 'spare' }, url: URL, perNamespace: true }),
        (error: unknown) =>
          error instanceof CliError &&
          /no stored pipeline has a target on flux-system\/spare: name the app namespaces with --namespaces/.test(
            error.message,
          ),
      );
    });

    it('--namespace (where the one set goes) makes no sense with it: an error', async () => {
      await assert.rejects(
        run({ perNamespace: true, namespace: 'flux-system' }),
        /--namespace and --no-cross-namespace-refs exclude each other/,
      );
    });
  });

  describe('on the command line', { concurrency: 1 }, () => {
    let root = '';
    before(async () => {
      root = await mkdtemp(join(tmpdir(), 'flux-config-test-'));
      await writeFiles(root, {
        'config/clusters.yaml': CLUSTERS,
        'config/secrets.yaml': SECRETS,
        'config/pipeline.yaml': pipeline('apps'),
      });
    });
    after(() => rm(root, { recursive: true, force: true }));
    // The master key from the environment, as the local mode takes it, so the tokens are known here.
    const cli = (...args: string[]) =>
      runCli([...args, '--data-dir', join(root, 'data')], { env: { PIPELINES_HMAC_KEY: MASTER_KEY } });

    for (const version of ['1.9', '2.10', '3.0', '2', 'latest', '2.x']) {
      it(`--flux-version ${version}: one line naming the flag and the releases it takes, exit 1`, async () => {
        const result = await cli(
          'flux-config',
          '--cluster',
          'flux-system/prod',
          '--url',
          URL,
          '--flux-version',
          version,
        );
        assert.equal(result.code, 1);
        assert.equal(result.stdout, '');
        assert.equal(
          result.stderr,
          `error: --flux-version must be a Flux release from 2.0 to 2.9, such as 2.4 or v2.4.1 (got "${version}")\n`,
        );
      });
    }

    it('--namespaces that are not namespace names: one line, exit 1', async () => {
      const result = await cli('flux-config', '--cluster', 'flux-system/prod', '--url', URL, '--namespaces', 'apps,,B');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^error: --namespaces must be namespace names separated by commas/);
    });

    it('--flux-version 2.1 --no-cross-namespace-refs --namespaces: v1beta2 objects in each namespace named', async () => {
      const applied = await cli('apply', '-f', join(root, 'config'));
      assert.equal(applied.code, 0, applied.stderr);
      const result = await cli(
        'flux-config',
        '--cluster',
        'flux-system/prod',
        '--url',
        URL,
        '--flux-version',
        '2.1',
        '--no-cross-namespace-refs',
        '--namespaces',
        'team-b,apps',
      );
      assert.equal(result.code, 0, result.stderr);
      const manifests = parse(result.stdout).map((d) => d.manifest);
      assert.equal(manifests.length, 6);
      assertTrio(manifests.slice(0, 3), V1BETA2, 'apps', ['apps']);
      assertTrio(manifests.slice(3), V1BETA2, 'team-b', ['team-b']);
    });
  });
});
