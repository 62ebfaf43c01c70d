// What `pipelinectl history` does: the audit trail of one pipeline or of all, and the commits each ConfigSource
// applied, newest first. The store keeps one trail per pipeline and one per source, each paged newest first, so the
// trails are merged as they are read and reading stops as soon as the limit is reached or the entries are older than
// --since: a long trail costs what is shown, not what is kept.
import { keyOfMetadata, objectKeyString, type ObjectKey, pipelineKeyOf } from '../../pipeline/model.js';
import type { PromotionFailureKind } from '../../promotion/failure-kind.js';
import {
  AUDIT_ENTRY_TYPES,
  type AuditEntry,
  type AuditEntryType,
  type ConfigAuditEntry,
  type Page,
  type PageRequest,
  type Store,
} from '../../store/port.js';
import { mapLimit } from '../../util/map-limit.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { ago, formatTable } from '../output.js';
import { shortRevision } from './config-sources.js';
import { listAll } from '../../util/paged.js';

/** Entries asked of the store at a time, per pipeline. */
const PAGE_SIZE = 100;

/** Trails whose first page is read at once: a fleet's worth of pipelines should not be read one after the other. */
const CONCURRENT_READS = 8;

/** The type of an entry `history` shows: a pipeline's, or a ConfigSource's applied commit. */
export type HistoryEntryType = AuditEntryType | ConfigAuditEntry['type'];

/** What `history` filters by: a pipeline's entry types, and a ConfigSource's applied commit. */
export const HISTORY_ENTRY_TYPES: readonly HistoryEntryType[] = [...AUDIT_ENTRY_TYPES, 'config-applied'];

/** An entry of a pipeline's trail or of a ConfigSource's. */
export type HistoryEntry = AuditEntry | ConfigAuditEntry;

export interface HistoryQuery<Type extends HistoryEntryType = HistoryEntryType> {
  /** One pipeline; undefined: every stored pipeline (and, where read, every stored ConfigSource). */
  pipeline?: ObjectKey;
  env?: string;
  type?: Type;
  /** Only entries at or after this time. */
  since?: Date;
  /** At most this many entries. */
  limit: number;
}

/** The entries `history` shows; a pipeline's trail only unless said otherwise. */
export interface History<Entry extends HistoryEntry = AuditEntry> {
  /** Newest first. */
  entries: Entry[];
  /** More entries match than the limit let through. */
  more: boolean;
}

/** One audit entry as `-o json` prints it: every field, absent ones as null. */
export interface HistoryEntryJson {
  at: string;
  /** The pipeline, `ns/name`; null for a ConfigSource's entry. */
  pipeline: string | null;
  /** The ConfigSource, `ns/name`, for its applied commits (`config-applied`); null for a pipeline's entry. */
  configSource: string | null;
  env: string | null;
  type: HistoryEntryType;
  /** A ConfigSource's applied commit in Flux's form, `<branch>@sha1:<40 hex>`. */
  revision: string | null;
  actor: string | null;
  message: string;
  /** A failed promotion or rollback: why, as a name a machine can count; null otherwise, and in older entries. */
  failureKind: PromotionFailureKind | null;
  /** The applied commit's author as the Git host reports it; null for a pipeline's entry, or when the host did not. */
  author: string | null;
  /** The objects (`pipeline ns/name`, `gitopscluster ns/name`) the commit created, changed and pruned; null for a
   *  pipeline's entry. */
  created: string[] | null;
  configured: string[] | null;
  pruned: string[] | null;
}

export interface HistoryJson {
  entries: HistoryEntryJson[];
  more: boolean;
}

/**
 * The pipelines' entries matching `query`, newest first across the pipelines read (the dashboard's history page). A
 * pipeline that is not stored is an error unless its trail still has entries (a deleted pipeline's trail outlives it
 * until the retention removes it).
 */
export async function readHistory(backend: Backend, query: HistoryQuery<AuditEntryType>): Promise<History<AuditEntry>> {
  return merge(await pipelineTrails(backend, query), query.limit);
}

/**
 * What `pipelinectl history` shows: the pipelines' entries and, when no pipeline is named, the commits each stored
 * ConfigSource applied (`config-applied`), newest first across them all. A ConfigSource's entries have no
 * environment, so `--env` leaves them out; `--type config-applied` reads only the sources' trails.
 */
export async function readHistoryWithConfigSources(
  backend: Backend,
  query: HistoryQuery,
): Promise<History<HistoryEntry>> {
  const { type } = query;
  if (type === CONFIG_APPLIED) {
    if (query.pipeline) {
      throw new CliError(`--type ${CONFIG_APPLIED} shows the ConfigSources' applied commits: name no pipeline with it`);
    }
    return merge(await configSourceTrails(backend, query), query.limit);
  }
  const pipelines = await pipelineTrails(backend, { ...query, type });
  const sources =
    query.pipeline || query.env !== undefined || type !== undefined ? [] : await configSourceTrails(backend, query);
  return merge<HistoryEntry>([...pipelines, ...sources], query.limit);
}

const CONFIG_APPLIED = 'config-applied' satisfies ConfigAuditEntry['type'];

async function pipelineTrails(
  backend: Backend,
  query: HistoryQuery<AuditEntryType>,
): Promise<TrailReader<AuditEntry>[]> {
  const { store } = backend;
  const keys = query.pipeline ? [query.pipeline] : await storedPipelines(store);
  const matches = (entry: HistoryEntry) =>
    !isConfigEntry(entry) &&
    (query.env === undefined || entry.env === query.env) &&
    (query.type === undefined || entry.type === query.type);
  const trails = keys.map((key) => new TrailReader((page) => store.listAudit(key, page), matches, query.since));
  if (query.pipeline && !(await store.getPipeline(query.pipeline)) && (await trails[0]?.isEmpty())) {
    throw new CliError(`pipeline ${objectKeyString(query.pipeline)} not found in ${backend.description}`);
  }
  return trails;
}

/** The trails of the stored ConfigSources (one list of the sources, then each trail read as the merge needs it). */
async function configSourceTrails(backend: Backend, query: HistoryQuery): Promise<TrailReader<ConfigAuditEntry>[]> {
  const { store } = backend;
  const sources = await listAll((page) => store.listConfigSources(page));
  return sources.map(({ document }) => {
    const key = keyOfMetadata(document.metadata);
    return new TrailReader(
      (page) => store.listConfigAudit(key, page),
      () => true,
      query.since,
    );
  });
}

async function storedPipelines(store: Store): Promise<ObjectKey[]> {
  const stored = await listAll((page) => store.listPipelines(page));
  return stored.map(({ pipeline }) => pipelineKeyOf(pipeline));
}

/** The newest `limit` entries across the trails, and whether more match. */
async function merge<Entry extends HistoryEntry>(
  trails: readonly TrailReader<Entry>[],
  limit: number,
): Promise<History<Entry>> {
  const entries: Entry[] = [];
  // One entry past the limit tells whether there are more.
  while (entries.length <= limit) {
    const next = await newestOf(trails);
    if (!next) break;
    entries.push(next.take());
  }
  return { entries: entries.slice(0, limit), more: entries.length > limit };
}

/**
 * The trail whose next matching entry is the newest; ties go to the trail listed first (pipelines before sources,
 * each in the store's order), so output is stable.
 */
async function newestOf<Entry extends HistoryEntry>(
  trails: readonly TrailReader<Entry>[],
): Promise<TrailReader<Entry> | undefined> {
  // Only a trail whose head was taken reads again: after the first round this is one page read at most.
  const heads = await mapLimit(trails, CONCURRENT_READS, (trail) => trail.peek());
  let newest: { trail: TrailReader<Entry>; at: string } | undefined;
  trails.forEach((trail, i) => {
    const head = heads[i];
    if (head && (!newest || head.at > newest.at)) newest = { trail, at: head.at };
  });
  return newest?.trail;
}

/** One trail, newest first, read a page at a time as the merge needs it, filtered by the query. */
class TrailReader<Entry extends HistoryEntry> {
  #buffer: Entry[] = [];
  #cursor: string | undefined;
  #exhausted = false;

  constructor(
    private readonly list: (page: PageRequest) => Promise<Page<Entry>>,
    private readonly matches: (entry: HistoryEntry) => boolean,
    private readonly since: Date | undefined,
  ) {}

  /** Whether the trail has no entry at all, whatever the filters. */
  async isEmpty(): Promise<boolean> {
    return (await this.list({ limit: 1 })).items.length === 0;
  }

  /** The next matching entry, undefined once there is none (or the rest is older than --since). */
  async peek(): Promise<Entry | undefined> {
    while (this.#buffer.length === 0 && !this.#exhausted) await this.#readPage();
    return this.#buffer[0];
  }

  take(): Entry {
    const entry = this.#buffer.shift();
    if (!entry) throw new Error('take() without an entry: peek() first');
    return entry;
  }

  async #readPage(): Promise<void> {
    const page = await this.list({ limit: PAGE_SIZE, cursor: this.#cursor });
    const since = this.since?.toISOString();
    for (const entry of page.items) {
      // Newest first: once one entry is older than --since, so is the rest of the trail.
      if (since !== undefined && entry.at < since) {
        this.#exhausted = true;
        return;
      }
      if (this.matches(entry)) this.#buffer.push(entry);
    }
    this.#cursor = page.cursor;
    if (page.cursor === undefined) this.#exhausted = true;
  }
}

export function isConfigEntry(entry: HistoryEntry): entry is ConfigAuditEntry {
  return entry.type === CONFIG_APPLIED;
}

export function historyJson(history: History<HistoryEntry>): HistoryJson {
  return {
    entries: history.entries.map((entry): HistoryEntryJson => {
      const config = isConfigEntry(entry) ? entry : undefined;
      const pipeline = isConfigEntry(entry) ? undefined : entry;
      return {
        at: entry.at,
        pipeline: pipeline ? objectKeyString(pipeline.pipeline) : null,
        configSource: config ? objectKeyString(config.configSource) : null,
        env: pipeline?.env ?? null,
        type: entry.type,
        revision: entry.revision ?? null,
        actor: entry.actor ?? null,
        message: entry.message,
        failureKind: pipeline?.failureKind ?? null,
        author: config?.author ?? null,
        created: config?.created ?? null,
        configured: config?.configured ?? null,
        pruned: config?.pruned ?? null,
      };
    }),
    more: history.more,
  };
}

const COLUMNS = [
  { header: 'TIME' },
  { header: 'PIPELINE', max: 40 },
  { header: 'ENV', max: 20 },
  { header: 'TYPE' },
  { header: 'REVISION', max: 24 },
  { header: 'ACTOR', max: 40 },
  // Whole: the message is what a reader came for, and it carries the error that explains a failure.
  { header: 'MESSAGE', runs: true },
] as const;

/**
 * The entries as a table, newest first, then a line saying when more entries match than were shown. Text from the
 * trail (messages carry errors from Git hosts and clusters) is escaped by formatTable, as every cell is.
 */
export function historyTable(history: History<HistoryEntry>, limit: number, now: Date): string[] {
  const rows = history.entries.map((entry) =>
    isConfigEntry(entry)
      ? [
          ago(entry.at, now),
          `configsource/${objectKeyString(entry.configSource)}`,
          '-',
          entry.type,
          shortRevision(entry.revision),
          entry.actor ?? '-',
          entry.message,
        ]
      : [
          ago(entry.at, now),
          objectKeyString(entry.pipeline),
          entry.env ?? '-',
          entry.type,
          entry.revision ?? '-',
          entry.actor ?? '-',
          entry.message,
        ],
  );
  const lines = formatTable(COLUMNS, rows);
  if (history.more) {
    lines.push(`(more than ${limit} entries: narrow with --since, --env or --type, or raise --limit)`);
  }
  return lines;
}
