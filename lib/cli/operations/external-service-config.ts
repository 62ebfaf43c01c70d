// What `pipelinectl flux-config --external-service NS/PIPELINE ENV` prints (docs/external-service.md): for the leaf
// clusters of an environment promoted by `external-service`, a Secret with the environment's input token (derived
// from the master key) and Flux Operator's ResourceSetInputProvider of type ExternalService that polls the receiver
// with it; then, as comments, example ResourceSets that set a HelmRelease's chart version or an OCIRepository's tag
// from `<< inputs.version >>` (comments, so that `kubectl apply -f -` creates only the first two).
import { Document } from 'yaml';
import { servesInputs } from '../../decision/index.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { strategyOf } from '../../pipeline/promotion.js';
import { deriveInputToken } from '../../signing/hmac.js';
import { inputsPath } from '../../promotion/external-service/promoter.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { parseHttpUrl } from '../flags.js';

export interface ExternalServiceConfigOptions {
  pipeline: ObjectKey;
  env: string;
  /** The receiver's base URL: the stack's ReceiverUrl, or the local serve's. */
  url: string;
  /** Where the Secret and the provider go on the leaf cluster; default `flux-system`. */
  namespace?: string;
  /** A cron expression: the provider fetches only then (Flux Operator's `spec.schedule`), e.g. a deployment window. */
  schedule?: string;
}

/** Flux Operator's API group and version of ResourceSet and ResourceSetInputProvider. */
export const FLUX_OPERATOR_API_VERSION = 'fluxcd.controlplane.io/v1';

/** `<url>/v1/inputs/<ns>/<pipeline>/<env>`, with exactly one slash between the parts whatever the URL ends with. */
export function inputsAddress(url: string, pipeline: ObjectKey, env: string): string {
  return `${parseHttpUrl(url, '--url')}${inputsPath(pipeline, env)}`;
}

const SECRET_COMMENT =
  " The token reads this environment's input and nothing else; it is derived from the master key: keep it\n" +
  ' secret. Do not commit this Secret to Git as it is: encrypt it with SOPS, or create it from your secret store\n' +
  ' with External Secrets; or apply it straight from this output.';

/** The multi-document YAML for `kubectl apply -f -` on each leaf cluster of the environment. */
export async function externalServiceConfig(backend: Backend, options: ExternalServiceConfigOptions): Promise<string> {
  const { pipeline: key, env } = options;
  const stored = await backend.store.getPipeline(key);
  if (!stored) throw new CliError(`pipeline ${objectKeyString(key)} is not stored in ${backend.description}`);
  const { pipeline } = stored;
  const environment = pipeline.environments.find((candidate) => candidate.name === env);
  if (!environment) {
    const names = pipeline.environments.map((candidate) => candidate.name).join(', ');
    throw new CliError(`pipeline ${objectKeyString(key)} has no environment "${env}" (it has ${names})`);
  }
  if (!servesInputs(pipeline, environment)) {
    const strategy = environment.promotion ? strategyOf(environment.promotion) : 'none';
    throw new CliError(
      `environment ${env} of ${objectKeyString(key)} is not promoted by external-service (its strategy: ${strategy}): ` +
        'set promotion.strategy.external-service: {} on it and apply the pipeline first',
    );
  }
  const namespace = options.namespace ?? 'flux-system';
  const name = `${pipeline.name}-${env}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63)
    .replace(/-+$/, '');
  const secretName = `pipeline-controller-${name}`.slice(0, 253);
  const token = deriveInputToken((await backend.masterKeys()).current, key, env);

  const secret = new Document({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName, namespace },
    type: 'Opaque',
    stringData: { token },
  });
  secret.commentBefore =
    ` Flux Operator on the leaf clusters of ${env} (pipeline ${objectKeyString(key)}): pull the revision it may run.\n` +
    ' Apply with: pipelinectl flux-config --external-service ... | kubectl apply -f -\n\n' +
    SECRET_COMMENT;
  const provider = new Document({
    apiVersion: FLUX_OPERATOR_API_VERSION,
    kind: 'ResourceSetInputProvider',
    metadata: {
      name,
      namespace,
      // How often it asks; the receiver answers each ask with one store read.
      annotations: { 'fluxcd.controlplane.io/reconcileEvery': '1m' },
    },
    spec: {
      type: 'ExternalService',
      url: inputsAddress(options.url, key, env),
      secretRef: { name: secretName },
      ...(options.schedule === undefined ? {} : { schedule: [{ cron: options.schedule }] }),
    },
  });
  const appNamespace = environment.targets[0]?.namespace ?? 'apps';
  return (
    [secret, provider].map((document) => document.toString()).join('---\n') +
    examples(name, namespace, pipeline.appRef.name, appNamespace)
  );
}

/** The example ResourceSets, as YAML comments: one for a HelmRelease's chart version, one for an OCIRepository's tag. */
function examples(provider: string, namespace: string, app: string, appNamespace: string): string {
  const inputsFrom = [{ kind: 'ResourceSetInputProvider', name: provider }];
  const helm = new Document({
    apiVersion: FLUX_OPERATOR_API_VERSION,
    kind: 'ResourceSet',
    metadata: { name: app, namespace },
    spec: {
      inputsFrom,
      resources: [
        {
          apiVersion: 'helm.toolkit.fluxcd.io/v2',
          kind: 'HelmRelease',
          metadata: { name: app, namespace: appNamespace },
          spec: {
            interval: '10m',
            chart: {
              spec: {
                chart: app,
                version: '<< inputs.version | quote >>',
                sourceRef: { kind: 'HelmRepository', name: app },
              },
            },
          },
        },
      ],
    },
  });
  const oci = new Document({
    apiVersion: FLUX_OPERATOR_API_VERSION,
    kind: 'ResourceSet',
    metadata: { name: `${app}-source`, namespace },
    spec: {
      inputsFrom,
      resources: [
        {
          apiVersion: 'source.toolkit.fluxcd.io/v1',
          kind: 'OCIRepository',
          metadata: { name: app, namespace: appNamespace },
          spec: {
            interval: '5m',
            url: `oci://registry.example.com/${app}`,
            ref: { tag: '<< inputs.version | quote >>' },
          },
        },
      ],
    },
  });
  const commented = (document: Document) =>
    document
      .toString()
      .trimEnd()
      .split('\n')
      .map((line) => `# ${line}`)
      .join('\n');
  return (
    '\n# Then template the app from the input, in a ResourceSet of your own. For a HelmRelease:\n' +
    `${commented(helm)}\n` +
    '#\n# Or for an OCIRepository (a Kustomization that applies it):\n' +
    `${commented(oci)}\n`
  );
}
