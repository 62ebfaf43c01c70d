// Checks across documents: unique names, and every reference (clusterRef, secretRef, the default cluster)
// resolving to a document of this configuration or to one applied before (`known`). What Weave accepts but is
// probably a mistake (both strategies in one block, a target listed twice) is a warning, not a problem.
// They run on every document with a kind and a name, valid or not: each part (appRef, environment, target,
// promotion) is checked when that part is valid on its own, so one run reports every problem there is.
import {
  APP_KIND_GROUPS,
  AppReference,
  AppsGenerator,
  ConfigSourceSpec,
  Environment,
  GitopsClusterSpec,
  PipelinePromotion,
  Promotion,
  SecretDocument,
  SourceReference,
  Target,
  VerificationCheckSchema,
  type Promotion as PromotionValue,
} from './schema.js';
import { keyOfMetadata, objectKeyString, WATCHED_KIND_GROUPS, type ObjectKey } from '../pipeline/model.js';
import { namesStrategy } from '../pipeline/promotion.js';
import { repositoryTypeOf } from '../pipeline/repository-address.js';
import type { ConfigProblem } from './problems.js';
import { closestName } from '../util/closest-name.js';
import { isRecord } from '../util/is-record.js';
import { problemAt, type DocumentAt } from './validate.js';
import { warningAt, type ConfigurationWarning } from './warnings.js';

/** A Secret applied earlier: its key names are enough to check references (its values are never needed here). */
export interface KnownSecret extends ObjectKey {
  keys: readonly string[];
}

export interface ReferenceContext {
  /** Where targets without a clusterRef run. */
  defaultCluster?: ObjectKey;
  /** GitopsClusters and Secrets already stored, which this configuration may refer to. */
  knownClusters: readonly ObjectKey[];
  knownSecrets: readonly KnownSecret[];
  /**
   * Set when nothing stored was read: a reference outside the configuration is not among the files given, a
   * problem or, with `unresolved: 'warning'`, a warning.
   */
  filesOnly?: { hint: string; unresolved?: 'problem' | 'warning' };
}

/** A document with a kind and a name, whatever else is wrong with it. */
export interface NamedDocument {
  at: DocumentAt;
  kind: string;
  key: ObjectKey;
  value: Record<string, unknown>;
}

/** The kind and key of a document, when it has a string kind and metadata.name. */
export function namedDocument(at: DocumentAt): NamedDocument | undefined {
  const value = at.value;
  if (!isRecord(value) || typeof value.kind !== 'string' || !isRecord(value.metadata)) return undefined;
  const { name, namespace } = value.metadata;
  if (typeof name !== 'string' || name === '') return undefined;
  return {
    at,
    kind: value.kind,
    key: keyOf({ name, namespace: typeof namespace === 'string' ? namespace : undefined }),
    value,
  };
}

export const keyOf = keyOfMetadata;

/** Key names of a valid Secret that hold a non-empty value (`data` decoded, `stringData` as is). */
export function nonEmptySecretKeys(secret: SecretDocument): Set<string> {
  const keys = new Set<string>();
  for (const [key, value] of Object.entries(secret.data ?? {})) if (value.replace(/\s+/g, '') !== '') keys.add(key);
  for (const [key, value] of Object.entries(secret.stringData ?? {})) {
    if (value !== '') keys.add(key);
    else keys.delete(key); // stringData wins over data, as in Kubernetes
  }
  return keys;
}

const GITHUB_APP_KEYS = ['githubAppID', 'githubAppInstallationID', 'githubAppPrivateKey'];

type RequireSecret = (
  at: DocumentAt,
  path: PropertyKey[],
  key: ObjectKey,
  purpose: string,
  missingKeys: (keys: Set<string>) => string | undefined,
) => void;

export function checkReferences(
  documents: readonly NamedDocument[],
  context: ReferenceContext,
): { problems: ConfigProblem[]; warnings: ConfigurationWarning[] } {
  const problems: ConfigProblem[] = [];
  const warnings: ConfigurationWarning[] = [];
  // References to objects neither in the configuration nor known.
  const missing: ConfigProblem[] = [];
  // Loops, not `push(...)`: a spread of many problems overflows the stack.
  for (const problem of checkUniqueNames(documents)) problems.push(problem);

  const clusters = new Set(context.knownClusters.map(objectKeyString));
  // undefined: the Secret exists but its keys are unknown (it is invalid, and reported as such); no key checks.
  const secrets = new Map<string, Set<string> | undefined>();
  for (const secret of context.knownSecrets) secrets.set(objectKeyString(secret), new Set(secret.keys));
  for (const { kind, key, value } of documents) {
    if (kind === 'GitopsCluster') clusters.add(objectKeyString(key));
    if (kind === 'Secret') {
      const parsed = SecretDocument.safeParse(value);
      secrets.set(objectKeyString(key), parsed.success ? nonEmptySecretKeys(parsed.data) : undefined);
    }
  }

  const requireSecret: RequireSecret = (at, path, key, purpose, missingKeys) => {
    const name = objectKeyString(key);
    if (!secrets.has(name)) {
      const hint = didYouMean(key, secrets);
      const message = context.filesOnly
        ? `Secret ${name} (it holds ${purpose}) ${notAmongFiles(context.filesOnly)}${hint}`
        : `Secret ${name} not found${hint} (it holds ${purpose})`;
      missing.push(problemAt(at, path, message));
      return;
    }
    const keys = secrets.get(name);
    const lacking = keys && missingKeys(keys);
    if (lacking) problems.push(problemAt(at, path, `Secret ${name} ${lacking} (it holds ${purpose})`));
  };

  for (const document of documents) {
    if (document.kind === 'Pipeline') {
      const checked = checkPipeline(document, clusters, context, requireSecret, missing);
      for (const problem of checked.problems) problems.push(problem);
      for (const warning of checked.warnings) warnings.push(warning);
    }
    if (document.kind === 'PipelineSet') checkGeneratorClusters(document, clusters, context, missing);
    if (document.kind === 'GitopsCluster') checkClusterSecret(document, requireSecret);
    if (document.kind === 'ConfigSource') checkConfigSourceSecret(document, requireSecret);
  }
  for (const problem of missing) {
    if (context.filesOnly?.unresolved === 'warning') warnings.push(asWarning(problem));
    else problems.push(problem);
  }
  return { problems, warnings };
}

function checkUniqueNames(documents: readonly NamedDocument[]): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, DocumentAt>();
  for (const { at, kind, key } of documents) {
    const id = `${kind} ${objectKeyString(key)}`;
    const first = seen.get(id);
    if (!first) {
      seen.set(id, at);
      continue;
    }
    const where = first.source.locate(first.path);
    const place = where ? `${first.source.file}:${where.line}` : first.source.file;
    // A generated document is named by its set and element, so that both ends of the clash are named.
    const by = first.label === id ? '' : ` (${first.label})`;
    problems.push(problemAt(at, ['metadata', 'name'], `duplicate ${id}: already defined at ${place}${by}`));
  }
  return problems;
}

function checkPipeline(
  { at, key, value }: NamedDocument,
  clusters: Set<string>,
  context: ReferenceContext,
  requireSecret: RequireSecret,
  missing: ConfigProblem[],
): { problems: ConfigProblem[]; warnings: ConfigurationWarning[] } {
  const problems: ConfigProblem[] = [];
  const warnings: ConfigurationWarning[] = [];
  const spec = isRecord(value.spec) ? value.spec : {};

  const appRef = AppReference.safeParse(spec.appRef);
  if (appRef.success) {
    const { kind, apiVersion } = appRef.data;
    const [group, version] = apiVersion.split('/');
    if (group !== APP_KIND_GROUPS[kind] || !version) {
      const expected = `${APP_KIND_GROUPS[kind]}/<version>`;
      problems.push(
        problemAt(at, ['spec', 'appRef', 'apiVersion'], `must be ${expected} for a ${kind} (found "${apiVersion}")`),
      );
    }
  }

  problems.push(...checkSource(at, spec.source, key.namespace, clusters, context, missing));

  const environmentNames = new Map<string, number>();
  const targets = new Map<string, string>();
  const environments = Array.isArray(spec.environments) ? (spec.environments as unknown[]) : [];
  environments.forEach((raw, e) => {
    const envPath = ['spec', 'environments', e];
    const environment = isRecord(raw) ? raw : {};
    const name = Environment.shape.name.safeParse(environment.name);
    if (name.success) {
      const firstIndex = environmentNames.get(name.data);
      if (firstIndex === undefined) environmentNames.set(name.data, e);
      else {
        const message = `duplicate environment name "${name.data}" (also environments[${firstIndex}])`;
        problems.push(problemAt(at, [...envPath, 'name'], message));
      }
    }

    const rawTargets = Array.isArray(environment.targets) ? (environment.targets as unknown[]) : [];
    rawTargets.forEach((rawTarget, t) => {
      const target = Target.safeParse(rawTarget);
      if (!target.success) return;
      const targetPath = [...envPath, 'targets', t];
      const cluster = targetCluster(target.data, key.namespace, context.defaultCluster);
      if (!cluster) {
        const message =
          'target has no clusterRef and no default cluster is set: add a clusterRef, or set a default cluster';
        problems.push(problemAt(at, targetPath, message));
        return;
      }
      if (!clusters.has(objectKeyString(cluster))) {
        missing.push(
          target.data.clusterRef
            ? problemAt(at, [...targetPath, 'clusterRef', 'name'], clusterNotFound(cluster, clusters, context))
            : problemAt(
                at,
                targetPath,
                `target has no clusterRef and the default cluster ${clusterNotFound(cluster, clusters, context, 'is ')}`,
              ),
        );
      }
      // Weave reads each environment's targets on their own, so a target listed twice counts in each place; the
      // decision does the same (its status is keyed by the app, not by where it is listed).
      const id = `${objectKeyString(cluster)} ${target.data.namespace}`;
      const first = targets.get(id);
      if (first === undefined) targets.set(id, `environments[${e}].targets[${t}]`);
      else {
        const message =
          `the same target as ${first} (cluster ${objectKeyString(cluster)}, namespace ${target.data.namespace}): ` +
          'accepted, as in Weave; it is read once and its status counts in every environment that lists it';
        warnings.push(warningAt(at, targetPath, message));
      }
    });

    checkVerificationSecrets(at, [...envPath, 'verification'], environment.verification, key.namespace, requireSecret);

    const promotion = Promotion.safeParse(environment.promotion);
    if (promotion.success) {
      checkPromotionSecrets(at, [...envPath, 'promotion'], promotion.data, key.namespace, requireSecret);
      const warning = bothStrategiesWarning(at, [...envPath, 'promotion'], promotion.data);
      if (warning) warnings.push(warning);
    }
  });

  const promotion = PipelinePromotion.safeParse(spec.promotion);
  const unpromotedFirst = sourceWithoutFirstPromotion(at, spec.source, environments[0], promotion.data);
  if (unpromotedFirst) warnings.push(unpromotedFirst);
  if (promotion.success) {
    checkPromotionSecrets(at, ['spec', 'promotion'], promotion.data, key.namespace, requireSecret);
    const warning = bothStrategiesWarning(at, ['spec', 'promotion'], promotion.data);
    if (warning) warnings.push(warning);
  }
  return { problems, warnings };
}

/**
 * Weave's CRD calls two strategies in one block "undefined behaviour", and its registry then picks the pull request
 * (registered first); so do the decision and the promoter here.
 */
function bothStrategiesWarning(
  at: DocumentAt,
  path: PropertyKey[],
  promotion: PromotionValue,
): ConfigurationWarning | undefined {
  if (!promotion.strategy['pull-request'] || !promotion.strategy.notification) return undefined;
  return warningAt(
    at,
    [...path, 'strategy', 'notification'],
    'pull-request and notification are both set: the pull request is used and notification is ignored, as in ' +
      'Weave (remove one of them)',
  );
}

/** The source's apiVersion (when given) is its kind's group, and its cluster is known, as for a target. */
function checkSource(
  at: DocumentAt,
  raw: unknown,
  pipelineNamespace: string,
  clusters: Set<string>,
  context: ReferenceContext,
  missing: ConfigProblem[],
): ConfigProblem[] {
  const defaultCluster = context.defaultCluster;
  const source = SourceReference.safeParse(raw);
  if (!source.success) return [];
  const problems: ConfigProblem[] = [];
  const { kind, apiVersion, clusterRef } = source.data;
  if (apiVersion !== undefined && apiVersion.split('/')[0] !== WATCHED_KIND_GROUPS[kind]) {
    const expected = `${WATCHED_KIND_GROUPS[kind]}/<version>`;
    problems.push(
      problemAt(at, ['spec', 'source', 'apiVersion'], `must be ${expected} for an ${kind} (found "${apiVersion}")`),
    );
  }
  const cluster = clusterRef
    ? { namespace: clusterRef.namespace ?? pipelineNamespace, name: clusterRef.name }
    : defaultCluster;
  if (!cluster) {
    const message = 'the source has no clusterRef and no default cluster is set: add a clusterRef, or set one';
    problems.push(problemAt(at, ['spec', 'source'], message));
  } else if (!clusters.has(objectKeyString(cluster))) {
    missing.push(
      clusterRef
        ? problemAt(at, ['spec', 'source', 'clusterRef', 'name'], clusterNotFound(cluster, clusters, context))
        : problemAt(
            at,
            ['spec', 'source'],
            `the source has no clusterRef and the default cluster ${clusterNotFound(cluster, clusters, context, 'is ')}`,
          ),
    );
  }
  return problems;
}

/**
 * A source is there to promote the first environment; without a strategy for it (its own block, or the pipeline's
 * naming one) the source's versions are only shown.
 */
function sourceWithoutFirstPromotion(
  at: DocumentAt,
  source: unknown,
  first: unknown,
  pipelinePromotion: PromotionValue | undefined,
): ConfigurationWarning | undefined {
  if (!SourceReference.safeParse(source).success) return undefined;
  const environment = isRecord(first) ? first : {};
  const own = Promotion.safeParse(environment.promotion);
  if (own.success || (pipelinePromotion && namesStrategy(pipelinePromotion))) return undefined;
  const name = typeof environment.name === 'string' ? environment.name : 'the first environment';
  return warningAt(
    at,
    ['spec', 'source'],
    `environment ${name} has no promotion (its own or the pipeline's strategy): the source's versions are shown ` +
      'but never promoted into it',
  );
}

/** The cluster each `apps` generator of a PipelineSet looks at is registered, as a target's must be. */
function checkGeneratorClusters(
  { at, key, value }: NamedDocument,
  clusters: Set<string>,
  context: ReferenceContext,
  missing: ConfigProblem[],
): void {
  const generators = isRecord(value.spec) && Array.isArray(value.spec.generators) ? value.spec.generators : [];
  generators.forEach((generator: unknown, index) => {
    const apps = AppsGenerator.safeParse(isRecord(generator) ? generator.apps : undefined);
    if (!apps.success) return;
    const cluster = { namespace: apps.data.clusterRef.namespace ?? key.namespace, name: apps.data.clusterRef.name };
    if (clusters.has(objectKeyString(cluster))) return;
    const path = ['spec', 'generators', index, 'apps', 'clusterRef', 'name'];
    missing.push(problemAt(at, path, clusterNotFound(cluster, clusters, context)));
  });
}

/**
 * `GitopsCluster ns/name not found` (`is not found` after `verb`), or, when nothing stored was read, that it is not
 * among the files given and how to resolve it.
 */
function clusterNotFound(cluster: ObjectKey, clusters: Set<string>, context: ReferenceContext, verb = ''): string {
  const name = `GitopsCluster ${objectKeyString(cluster)}`;
  const hint = didYouMean(cluster, clusters);
  return context.filesOnly ? `${name} ${notAmongFiles(context.filesOnly)}${hint}` : `${name} ${verb}not found${hint}`;
}

// The names of a set (complete before the first reference is checked) by namespace, read once however many
// references are missing from it.
const namesByNamespace = new WeakMap<object, Map<string, string[]>>();

/**
 * ` (did you mean ns/name?)` when an object of that kind in the same namespace (of this configuration or known:
 * `existing` holds their `ns/name`) is named one edit away from the missing `key`; empty otherwise.
 */
function didYouMean(key: ObjectKey, existing: Set<string> | Map<string, unknown>): string {
  let byNamespace = namesByNamespace.get(existing);
  if (!byNamespace) {
    byNamespace = new Map();
    for (const id of existing.keys()) {
      const slash = id.indexOf('/');
      const namespace = id.slice(0, slash);
      const names = byNamespace.get(namespace) ?? [];
      names.push(id.slice(slash + 1));
      byNamespace.set(namespace, names);
    }
    namesByNamespace.set(existing, byNamespace);
  }
  const near = closestName(key.name, byNamespace.get(key.namespace) ?? [], { maxEdits: 1 });
  return near === undefined ? '' : ` (did you mean ${objectKeyString({ namespace: key.namespace, name: near })}?)`;
}

function notAmongFiles(filesOnly: { hint: string }): string {
  return `is not among the files given (${filesOnly.hint})`;
}

function asWarning(problem: ConfigProblem): ConfigurationWarning {
  const { file = '', line, column, document = '', path = '', message } = problem;
  return { file, line, column, document, path, message };
}

function targetCluster(target: Target, pipelineNamespace: string, defaultCluster?: ObjectKey): ObjectKey | undefined {
  if (!target.clusterRef) return defaultCluster;
  return { namespace: target.clusterRef.namespace ?? pipelineNamespace, name: target.clusterRef.name };
}

function checkPromotionSecrets(
  at: DocumentAt,
  path: PropertyKey[],
  promotion: PromotionValue,
  namespace: string,
  requireSecret: RequireSecret,
): void {
  const { strategy } = promotion;
  if (strategy.secretRef) {
    const secret = { namespace, name: strategy.secretRef.name };
    requireSecret(at, [...path, 'strategy', 'secretRef', 'name'], secret, 'the webhook HMAC key', (keys) =>
      keys.has('hmac-key') ? undefined : 'has no non-empty "hmac-key" key',
    );
  }
  const pullRequest = strategy['pull-request'];
  if (pullRequest) {
    const secret = { namespace, name: pullRequest.secretRef.name };
    const secretPath = [...path, 'strategy', 'pull-request', 'secretRef', 'name'];
    requireSecret(at, secretPath, secret, `the ${pullRequest.type} credentials`, (keys) =>
      gitCredentialsProblem(pullRequest.type, keys),
    );
  }
}

/**
 * The Secrets a verification's checks send (an HTTP check's, a Prometheus query's): each check is looked at when it
 * is valid on its own, so a problem elsewhere in the verification does not hide a missing Secret.
 */
function checkVerificationSecrets(
  at: DocumentAt,
  path: PropertyKey[],
  verification: unknown,
  namespace: string,
  requireSecret: RequireSecret,
): void {
  const checks = isRecord(verification) && Array.isArray(verification.checks) ? (verification.checks as unknown[]) : [];
  checks.forEach((raw, index) => {
    const check = VerificationCheckSchema.safeParse(raw);
    if (!check.success) return;
    const { name, http, prometheus } = check.data;
    const refs: [PropertyKey[], string | undefined][] = [
      [['http', 'secretRef', 'name'], http?.secretRef?.name],
      [['prometheus', 'auth', 'secretRef', 'name'], prometheus?.auth?.secretRef?.name],
    ];
    for (const [field, secretName] of refs) {
      if (secretName === undefined) continue;
      const secret = { namespace, name: secretName };
      requireSecret(at, [...path, 'checks', index, ...field], secret, `the credentials of check ${name}`, (keys) =>
        checkCredentialsProblem(keys),
      );
    }
  });
}

/** A check's Secret holds a bearer token, or a user name and password for basic authentication. */
function checkCredentialsProblem(keys: Set<string>): string | undefined {
  if (keys.has('token') || (keys.has('username') && keys.has('password'))) return undefined;
  return 'has neither a non-empty "token" key nor non-empty "username" and "password" keys';
}

/** A ConfigSource reads its repository with the same credentials as a pull request on that host. */
function checkConfigSourceSecret({ at, key, value }: NamedDocument, requireSecret: RequireSecret): void {
  const spec = ConfigSourceSpec.safeParse(value.spec);
  if (!spec.success) return;
  const type = repositoryTypeOf(spec.data.url, spec.data.type);
  const secret = { namespace: key.namespace, name: spec.data.secretRef.name };
  requireSecret(at, ['spec', 'secretRef', 'name'], secret, `the ${type ?? 'Git'} read credentials`, (keys) =>
    gitCredentialsProblem(type, keys),
  );
}

/** What a Secret of Git credentials for a host of `type` lacks, or undefined when it holds enough. */
function gitCredentialsProblem(type: string | undefined, keys: Set<string>): string | undefined {
  if (keys.has('token')) return undefined;
  if (type === 'github' && GITHUB_APP_KEYS.every((k) => keys.has(k))) return undefined;
  return type === 'github'
    ? `has neither a non-empty "token" key nor the GitHub App keys ${GITHUB_APP_KEYS.join(', ')}`
    : 'has no non-empty "token" key';
}

function checkClusterSecret({ at, key, value }: NamedDocument, requireSecret: RequireSecret): void {
  const spec = GitopsClusterSpec.safeParse(value.spec);
  if (!spec.success) return;
  const { secretRef, capiClusterRef } = spec.data;
  if (secretRef) {
    const secret = { namespace: key.namespace, name: secretRef.name };
    requireSecret(at, ['spec', 'secretRef', 'name'], secret, 'the kubeconfig', (keys) =>
      keys.has('value') || keys.has('value.yaml') || keys.has('kubeconfig')
        ? undefined
        : 'has no non-empty "value", "value.yaml" or "kubeconfig" key',
    );
  }
  if (capiClusterRef) {
    // Cluster API writes the kubeconfig of cluster X to the Secret X-kubeconfig, key `value`; Weave's
    // cluster-controller also reads `value.yaml` (docs/weave-compatibility.md).
    const secret = { namespace: key.namespace, name: `${capiClusterRef.name}-kubeconfig` };
    requireSecret(at, ['spec', 'capiClusterRef', 'name'], secret, 'the Cluster API kubeconfig', (keys) =>
      keys.has('value') || keys.has('value.yaml') ? undefined : 'has no non-empty "value" or "value.yaml" key',
    );
  }
}
