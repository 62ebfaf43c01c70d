// What `pipelinectl get configsources` and `status` show of the ConfigSources: each source's repository, branch and
// folder, the commit in force and its Ready condition, as a table or as the documents with a `status` block (Flux's
// way: a `kubectl get -o yaml` of a Kustomization reads the same).
import type { ConfigSourceDocument } from '../../config/schema.js';
import { keyOfMetadata, objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { ReadyCondition, StoredConfigSource } from '../../store/port.js';
import { listAll } from '../../util/paged.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { formatTable } from '../output.js';

/**
 * A ConfigSource as `get configsources -o json|yaml` prints it: the document as applied, with the controller's
 * `status`. `apply -f` takes it back: a ConfigSource's `status` is never read from a file.
 */
export interface ConfigSourceJson extends Omit<ConfigSourceDocument, 'status'> {
  status: ConfigSourceStatusJson;
}

/** Absent values are null; the revisions are Flux's `<branch>@sha1:<40 hex>`. */
export interface ConfigSourceStatusJson {
  /** The commit whose configuration is in force; null until a commit was applied. */
  lastAppliedRevision: string | null;
  /** The last commit a sync was made for, whatever its outcome; null before the first. */
  lastAttemptedRevision: string | null;
  /** Pipelines and GitopsClusters applied at the commit in force; null until a commit was applied. */
  applied: number | null;
  /** Documents of other kinds skipped at the commit in force (a Kustomization beside the pipelines). */
  skipped: number | null;
  /** The `Ready` condition (`Unknown`/`Pending` before the first sync). */
  conditions: ReadyCondition[];
}

/** Every stored ConfigSource, or the one named (an error naming it when it is not stored). */
export async function storedConfigSources(backend: Backend, key?: ObjectKey): Promise<StoredConfigSource[]> {
  if (!key) return listAll((page) => backend.store.listConfigSources(page));
  const stored = await backend.store.getConfigSource(key);
  if (!stored) throw new CliError(`configsource ${objectKeyString(key)} not found in ${backend.description}`);
  return [stored];
}

export function configSourceJson({ document, status }: StoredConfigSource): ConfigSourceJson {
  const { status: _fromFile, ...applied } = document;
  return {
    ...applied,
    status: {
      lastAppliedRevision: status.lastAppliedRevision ?? null,
      lastAttemptedRevision: status.lastAttemptedRevision ?? null,
      applied: status.applied ?? null,
      skipped: status.skipped ?? null,
      conditions: status.conditions,
    },
  };
}

/** The source's Ready condition; a source without one (never written so by the store) reads as Unknown. */
export function readyOf(
  stored: StoredConfigSource,
): Pick<ReadyCondition, 'status' | 'reason' | 'message'> & { lastTransitionTime?: string } {
  const ready = stored.status.conditions.find((condition) => condition.type === 'Ready');
  return ready ?? { status: 'Unknown', reason: 'Pending', message: 'no Ready condition recorded' };
}

/**
 * A revision as Flux's CLI shows one: `main@sha1:1a2b3c4d` (the commit cut to 8 hex digits); `-` for none. A
 * revision of another form is shown as it is.
 */
export function shortRevision(revision: string | undefined): string {
  if (revision === undefined) return '-';
  const match = /^(.*@sha1:)([0-9a-f]{40})$/.exec(revision);
  return match ? `${match[1]}${match[2]?.slice(0, 8)}` : revision;
}

/** The key of a stored source, `ns/name`. */
export function configSourceName(stored: StoredConfigSource): string {
  return objectKeyString(keyOfMetadata(stored.document.metadata));
}

/**
 * The table of sources: name, repository, branch, folder (`.` for the repository's root), the commit in force, and
 * the Ready condition with its message (text from the Git host and the repository's files: formatTable makes it one
 * line and escapes it, as every cell).
 */
export function configSourcesTable(sources: readonly StoredConfigSource[]): string[] {
  return formatTable(
    [
      { header: 'NAME', max: 32 },
      { header: 'URL', max: 40 },
      { header: 'BRANCH', max: 16 },
      { header: 'PATH', max: 24 },
      { header: 'APPLIED', max: 28 },
      { header: 'READY' },
      { header: 'MESSAGE' },
    ],
    sources.map((stored) => {
      const { spec } = stored.document;
      const ready = readyOf(stored);
      return [
        configSourceName(stored),
        spec.url,
        spec.branch,
        spec.path || '.',
        shortRevision(stored.status.lastAppliedRevision),
        ready.status,
        ready.message,
      ];
    }),
  );
}

/** A ConfigSource as `status -o json` lists it (`configSources`): absent values are null. */
export interface ConfigSourceStatusSummaryJson {
  namespace: string;
  name: string;
  url: string;
  branch: string;
  /** The folder read, as written; null for the repository's root. */
  path: string | null;
  /** The commit in force, `<branch>@sha1:<40 hex>`; null until one was applied. */
  lastAppliedRevision: string | null;
  lastAttemptedRevision: string | null;
  /** The Ready condition's status, reason and message, and when its status last changed. */
  ready: ReadyCondition['status'];
  reason: ReadyCondition['reason'];
  message: string;
  lastTransitionTime: string | null;
}

export function configSourceStatusSummary(stored: StoredConfigSource): ConfigSourceStatusSummaryJson {
  const key = keyOfMetadata(stored.document.metadata);
  const { spec } = stored.document;
  const { status, reason, message, lastTransitionTime } = readyOf(stored);
  return {
    ...key,
    url: spec.url,
    branch: spec.branch,
    path: spec.path || null,
    lastAppliedRevision: stored.status.lastAppliedRevision ?? null,
    lastAttemptedRevision: stored.status.lastAttemptedRevision ?? null,
    ready: status,
    reason,
    message,
    lastTransitionTime: lastTransitionTime ?? null,
  };
}

/**
 * The `Config sources` section of `status`: a title, then one row per source with the commit in force and its Ready
 * condition (escaped and made one line by formatTable, as every cell).
 */
export function configSourcesSection(sources: readonly StoredConfigSource[]): string[] {
  const rows = sources.map((stored) => {
    const ready = readyOf(stored);
    return [
      configSourceName(stored),
      shortRevision(stored.status.lastAppliedRevision),
      `${ready.status} (${ready.reason})`,
      ready.message,
    ];
  });
  return [
    'Config sources',
    ...formatTable(
      [{ header: 'NAME', max: 40 }, { header: 'APPLIED', max: 32 }, { header: 'READY' }, { header: 'MESSAGE' }],
      rows,
    ),
  ];
}
