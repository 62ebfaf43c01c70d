// The GitHub marker scan's facts (lib/promotion/pull-request/scan-store.ts) in the table: one item per repository,
// pk `MARKERS#{repository key}`, sk `SCAN#v{format}`, so a new marker format never reads old facts; a repository whose
// facts outgrow one item continues in more (sk `SCAN#v{format}#{n}`, n from 1), so that the stored scan covers the
// repository it serves, as far as MAX_SCAN_ITEMS of them hold (about 280,000 files).
//
// Encoding, to stay far below DynamoDB's 400 KB item limit: the blobs without markers (nearly all) are one binary
// attribute, their 20-byte ids concatenated oldest first (500 blobs = 10 KB); the few with markers are a map of id →
// markers. An item holds up to `maxItemBytes` (default 350,000 bytes: about 17,000 blobs without markers): the first
// item the most recently seen facts (the caller lists the blobs of the tree it just scanned last), the next ones the
// older ones, and the first says how many there are (`items`). Past the last item the oldest facts are dropped. A
// repository of one item (most) is read with one GetItem and written with one PutItem, as it always was.
//
// Writes replace the items (last writer wins), the first last, so that it never names more items than were written:
// the facts never go stale, the caller merges what it loaded with what it learnt, and a fact lost to a concurrent
// writer only costs one blob read later. Items expire (TTL) after the table's retention without a save, so a
// repository no longer promoted leaves nothing behind for long, and neither do the items beyond a shrunk count.
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { MARKER_SCAN_FORMAT, type MarkerFacts, type MarkerScanStore } from '../../promotion/pull-request/scan-store.js';
import { expiresAfter, TABLE_SCHEMA, type TableContext } from './table.js';

/** DynamoDB's limit is 400 KB (409,600 bytes); the rest is margin for the estimate below. */
export const DEFAULT_MAX_MARKER_SCAN_BYTES = 350_000;
/** The most items one repository's facts take. */
export const MAX_SCAN_ITEMS = 16;

export interface DynamoMarkerScansOptions {
  /** The item's largest size (estimated as DynamoDB counts it); the oldest facts go first. */
  maxItemBytes?: number;
  now?: () => Date;
}

const ENTITY = 'marker-scan';
const SHA1_BYTES = 20;
const SHA1_HEX = /^[0-9a-f]{40}$/;
const BLOB_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** A map entry costs its name, one byte, and the list: 3 bytes plus one per element and its text. */
const MAP_ENTRY_OVERHEAD = 1 + 3;

/** The key of a repository's first item (`item` 0), or of a further one. */
export function markerScanKey(repositoryKey: string, item = 0): { pk: string; sk: string } {
  const sk = `SCAN#v${MARKER_SCAN_FORMAT}${item === 0 ? '' : `#${item}`}`;
  return { pk: `MARKERS#${encodeURIComponent(repositoryKey)}`, sk };
}

export class DynamoMarkerScans implements MarkerScanStore {
  private readonly maxItemBytes: number;
  private readonly now: () => Date;

  constructor(
    private readonly table: TableContext,
    options: DynamoMarkerScansOptions = {},
  ) {
    this.maxItemBytes = options.maxItemBytes ?? DEFAULT_MAX_MARKER_SCAN_BYTES;
    this.now = options.now ?? (() => new Date());
  }

  async load(repositoryKey: string): Promise<Map<string, readonly string[]>> {
    // Eventually consistent: half the read units, and a fact missed only costs a blob read.
    const get = (item: number) =>
      this.table.documents.send(
        new GetCommand({ TableName: this.table.tableName, Key: markerScanKey(repositoryKey, item) }),
      );
    const first = (await get(0)).Item;
    if (!first) return new Map();
    const count = typeof first.items === 'number' ? Math.min(first.items, MAX_SCAN_ITEMS) : 1;
    const more = await Promise.all(Array.from({ length: count - 1 }, (_, i) => get(i + 1)));
    const facts = new Map<string, readonly string[]>();
    // The oldest facts first, as they were saved.
    for (const { Item } of more.reverse())
      if (Item) for (const [blobId, markers] of decodeFacts(Item)) facts.set(blobId, markers);
    for (const [blobId, markers] of decodeFacts(first)) facts.set(blobId, markers);
    return facts;
  }

  async save(repositoryKey: string, facts: MarkerFacts): Promise<void> {
    const now = this.now();
    const base = (item: number) => ({
      ...markerScanKey(repositoryKey, item),
      entity: ENTITY,
      format: MARKER_SCAN_FORMAT,
      repository: repositoryKey,
      savedAt: now.toISOString(),
      [TABLE_SCHEMA.ttlAttribute]: expiresAfter(now, this.table.retentionDays),
      items: MAX_SCAN_ITEMS,
      blobCount: 0,
      blobsWithoutMarkers: new Uint8Array(0),
      markersByBlob: {},
    });
    // The newest facts in the first item, the older ones in the next.
    const items: [string, readonly string[]][][] = [];
    let rest = [...facts];
    while (rest.length > 0 && items.length < MAX_SCAN_ITEMS) {
      const kept = newestThatFit(rest, this.maxItemBytes - itemBytes(base(items.length)));
      if (kept.length === 0) break;
      items.push(kept);
      rest = rest.slice(0, rest.length - kept.length);
    }
    const put = (item: number, kept: [string, readonly string[]][]) => {
      const withoutMarkers: Buffer[] = [];
      const withMarkers: Record<string, readonly string[]> = {};
      for (const [sha, markers] of kept) {
        if (markers.length === 0 && SHA1_HEX.test(sha)) withoutMarkers.push(Buffer.from(sha, 'hex'));
        else withMarkers[sha] = markers;
      }
      return this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          // An empty binary attribute is left out rather than stored.
          Item: {
            ...base(item),
            items: items.length || 1,
            blobCount: kept.length,
            blobsWithoutMarkers: withoutMarkers.length > 0 ? Buffer.concat(withoutMarkers) : undefined,
            markersByBlob: withMarkers,
          },
        }),
      );
    };
    await Promise.all(items.slice(1).map((kept, i) => put(i + 1, kept)));
    await put(0, items[0] ?? []);
  }
}

/** The newest facts (the end of the list) whose encoding fits in `budget` bytes, in their original order. */
function newestThatFit(facts: [string, readonly string[]][], budget: number): [string, readonly string[]][] {
  let used = 0;
  let first = facts.length;
  while (first > 0) {
    const [sha, markers] = facts[first - 1] as [string, readonly string[]];
    const cost = factBytes(sha, markers);
    if (used + cost > budget) break;
    used += cost;
    first--;
  }
  return facts.slice(first);
}

function factBytes(sha: string, markers: readonly string[]): number {
  if (markers.length === 0 && SHA1_HEX.test(sha)) return SHA1_BYTES;
  return sha.length + MAP_ENTRY_OVERHEAD + markers.reduce((sum, marker) => sum + 1 + utf8Bytes(marker), 0);
}

/** The item's size as DynamoDB counts it (attribute names and values; numbers at their 21-byte maximum). */
function itemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8Bytes(name) + valueBytes(value), 0);
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number') return 21;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueBytes(element), 0);
  if (value && typeof value === 'object') return 3 + itemBytes(value as Record<string, unknown>) + 1;
  return 1;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The facts of a stored item, the blobs with markers first; anything malformed rejects the whole item. */
function decodeFacts(item: Record<string, unknown>): Map<string, readonly string[]> {
  const malformed = (what: string) => new Error(`the stored marker scan ${String(item.pk)} is malformed: ${what}`);
  if (item.entity !== ENTITY || item.format !== MARKER_SCAN_FORMAT) throw malformed('not a marker scan');
  const facts = new Map<string, readonly string[]>();
  const { markersByBlob, blobsWithoutMarkers: blobs } = item;
  if (markersByBlob !== undefined) {
    if (!markersByBlob || typeof markersByBlob !== 'object' || Array.isArray(markersByBlob)) {
      throw malformed('markersByBlob is not a map');
    }
    for (const [sha, list] of Object.entries(markersByBlob)) {
      if (!BLOB_ID.test(sha)) throw malformed('a blob id is not a hexadecimal object id');
      if (!Array.isArray(list) || !list.every((marker) => typeof marker === 'string')) {
        throw malformed('markers are not lists of strings');
      }
      facts.set(sha, list);
    }
  }
  if (blobs !== undefined) {
    if (!(blobs instanceof Uint8Array) || blobs.length % SHA1_BYTES !== 0) {
      throw malformed(`blobsWithoutMarkers is not a sequence of ${SHA1_BYTES}-byte ids`);
    }
    const bytes = Buffer.from(blobs.buffer, blobs.byteOffset, blobs.length);
    for (let offset = 0; offset < bytes.length; offset += SHA1_BYTES) {
      facts.set(bytes.toString('hex', offset, offset + SHA1_BYTES), []);
    }
  }
  return facts;
}
