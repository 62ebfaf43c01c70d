// What `pipelinectl history` does: the audit trail of one pipeline or of all, newest first. The store keeps one trail
// per pipeline, each paged newest first, so the trails are merged as they are read and reading stops as soon as the
// limit is reached or the entries are older than --since: a long trail costs what is shown, not what is kept.
import { objectKeyString, type ObjectKey, pipelineKeyOf } from '../../pipeline/model.js';
import type { PromotionFailureKind } from '../../promotion/failure-kind.js';
import type { AuditEntry, AuditEntryType, Store } from '../../store/port.js';
import { mapLimit } from '../../util/map-limit.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { ago, formatTable } from '../output.js';
import { listAll } from '../../util/paged.js';

/** Entries asked of the store at a time, per pipeline. */
const PAGE_SIZE = 100;

/** Trails whose first page is read at once: a fleet's worth of pipelines should not be read one after the other. */
const CONCURRENT_READS = 8;

export interface HistoryQuery {
  /** One pipeline; undefined: every stored pipeline. */
  pipeline?: ObjectKey;
  env?: string;
  type?: AuditEntryType;
  /** Only entries at or after this time. */
  since?: Date;
  /** At most this many entries. */
  limit: number;
}

export interface History {
  /** Newest first. */
  entries: AuditEntry[];
  /** More entries match than the limit let through. */
  more: boolean;
}

/** One audit entry as `-o json` prints it: every field, absent ones as null. */
export interface HistoryEntryJson {
  at: string;
  pipeline: string;
  env: string | null;
  type: AuditEntryType;
  revision: string | null;
  actor: string | null;
  message: string;
  /** A failed promotion or rollback: why, as a name a machine can count; null otherwise, and in older entries. */
  failureKind: PromotionFailureKind | null;
}

export interface HistoryJson {
  entries: HistoryEntryJson[];
  more: boolean;
}

/**
 * The entries matching `query`, newest first across the pipelines read. A pipeline that is not stored is an error
 * unless its trail still has entries (a deleted pipeline's trail outlives it until the retention removes it).
 */
export async function readHistory(backend: Backend, query: HistoryQuery): Promise<History> {
  const keys = query.pipeline ? [query.pipeline] : await storedPipelines(backend.store);
  const trails = keys.map((key) => new TrailReader(backend.store, key, query));
  if (query.pipeline && !(await backend.store.getPipeline(query.pipeline)) && (await trails[0]?.isEmpty())) {
    throw new CliError(`pipeline ${objectKeyString(query.pipeline)} not found in ${backend.description}`);
  }
  const entries: AuditEntry[] = [];
  // One entry past the limit tells whether there are more.
  while (entries.length <= query.limit) {
    const next = await newestOf(trails);
    if (!next) break;
    entries.push(next.take());
  }
  return { entries: entries.slice(0, query.limit), more: entries.length > query.limit };
}

async function storedPipelines(store: Store): Promise<ObjectKey[]> {
  const stored = await listAll((page) => store.listPipelines(page));
  return stored.map(({ pipeline }) => pipelineKeyOf(pipeline));
}

/** The trail whose next matching entry is the newest; ties go to the pipeline named first, so output is stable. */
async function newestOf(trails: readonly TrailReader[]): Promise<TrailReader | undefined> {
  // Only a trail whose head was taken reads again: after the first round this is one page read at most.
  const heads = await mapLimit(trails, CONCURRENT_READS, (trail) => trail.peek());
  let newest: { trail: TrailReader; at: string } | undefined;
  trails.forEach((trail, i) => {
    const head = heads[i];
    if (head && (!newest || head.at > newest.at)) newest = { trail, at: head.at };
  });
  return newest?.trail;
}

/** One pipeline's trail, newest first, read a page at a time as the merge needs it, filtered by the query. */
class TrailReader {
  #buffer: AuditEntry[] = [];
  #cursor: string | undefined;
  #exhausted = false;

  constructor(
    private readonly store: Pick<Store, 'listAudit'>,
    private readonly pipeline: ObjectKey,
    private readonly query: HistoryQuery,
  ) {}

  /** Whether the trail has no entry at all, whatever the filters. */
  async isEmpty(): Promise<boolean> {
    return (await this.store.listAudit(this.pipeline, { limit: 1 })).items.length === 0;
  }

  /** The next matching entry, undefined once there is none (or the rest is older than --since). */
  async peek(): Promise<AuditEntry | undefined> {
    while (this.#buffer.length === 0 && !this.#exhausted) await this.#readPage();
    return this.#buffer[0];
  }

  take(): AuditEntry {
    const entry = this.#buffer.shift();
    if (!entry) throw new Error('take() without an entry: peek() first');
    return entry;
  }

  async #readPage(): Promise<void> {
    const page = await this.store.listAudit(this.pipeline, { limit: PAGE_SIZE, cursor: this.#cursor });
    const since = this.query.since?.toISOString();
    for (const entry of page.items) {
      // Newest first: once one entry is older than --since, so is the rest of the trail.
      if (since !== undefined && entry.at < since) {
        this.#exhausted = true;
        return;
      }
      if (this.#matches(entry)) this.#buffer.push(entry);
    }
    this.#cursor = page.cursor;
    if (page.cursor === undefined) this.#exhausted = true;
  }

  #matches(entry: AuditEntry): boolean {
    const { env, type } = this.query;
    return (env === undefined || entry.env === env) && (type === undefined || entry.type === type);
  }
}

export function historyJson(history: History): HistoryJson {
  return {
    entries: history.entries.map((entry) => ({
      at: entry.at,
      pipeline: objectKeyString(entry.pipeline),
      env: entry.env ?? null,
      type: entry.type,
      revision: entry.revision ?? null,
      actor: entry.actor ?? null,
      message: entry.message,
      failureKind: entry.failureKind ?? null,
    })),
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
  { header: 'MESSAGE' },
] as const;

/**
 * The entries as a table, newest first, then a line saying when more entries match than were shown. Text from the
 * trail (messages carry errors from Git hosts and clusters) is escaped by formatTable, as every cell is.
 */
export function historyTable(history: History, limit: number, now: Date): string[] {
  const rows = history.entries.map((entry) => [
    ago(entry.at, now),
    objectKeyString(entry.pipeline),
    entry.env ?? '-',
    entry.type,
    entry.revision ?? '-',
    entry.actor ?? '-',
    entry.message,
  ]);
  const lines = formatTable(COLUMNS, rows);
  if (history.more) {
    lines.push(`(more than ${limit} entries: narrow with --since, --env or --type, or raise --limit)`);
  }
  return lines;
}
