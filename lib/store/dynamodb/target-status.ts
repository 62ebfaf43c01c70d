// Observed target status, one item per app object (it belongs to the app, not to the pipelines that use it).
// A write happens only when the status changed: we read first, because in DynamoDB even a write whose condition
// fails is billed as a write, and a redundant event must cost reads only. The write is conditional on the value
// read and on not being older than what is stored, so concurrent verifiers never go back in time. The one exception is
// a pristine pair's first poll (createPolledStatuses), whose new statuses are written in batches without a condition:
// how an overwritten newer status is noticed and recorded again is in docs/architecture.md, "The poll summary".
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TargetStatus } from '../../flux/target-status.js';
import { appKeyString, type AppKey } from '../../pipeline/model.js';
import type {
  CreatedPolledStatus,
  ObservedTargetStatus,
  PolledRecord,
  RecordedStatus,
  TargetStatuses,
} from '../port.js';
import { batchGet, batchWrite, putRequest } from './batch.js';
import { fingerprint } from './fingerprint.js';
import { decodeTargetStatus } from './stored-target-status.js';
import { conditionHeld, keys, type TableContext } from './table.js';

interface StatusItem {
  /** The status in the current shape, or in the shape of an older version (decoded on read). */
  status: unknown;
  fingerprint: string;
  observedAt: string;
  changedAt: string;
  appKey: string;
}

const MAX_ATTEMPTS = 5;

export class DynamoTargetStatuses implements TargetStatuses {
  constructor(private readonly table: TableContext) {}

  async getTargetStatus(app: AppKey): Promise<ObservedTargetStatus | undefined> {
    const item = await this.read(app);
    return item && observed(item);
  }

  async getTargetStatuses(apps: readonly AppKey[]): Promise<Map<string, ObservedTargetStatus>> {
    const unique = [...new Map(apps.map((app) => [appKeyString(app), app])).values()];
    const items = await batchGet(this.table, unique.map(keys.targetStatus), true);
    return new Map(
      items.map((item) => [(item as unknown as StatusItem).appKey, observed(item as unknown as StatusItem)]),
    );
  }

  async recordTargetStatus(
    app: AppKey,
    status: TargetStatus,
    now: Date,
    options: { refreshAfterMs?: number } = {},
  ): Promise<RecordedStatus> {
    const { changed, written, created } = await this.recordPolledStatus(app, status, now, options);
    return { changed, written, created };
  }

  /** One consistent BatchGetItem per 100 apps, then one BatchWriteItem per 25 apps without a stored status. */
  async createPolledStatuses(
    observations: readonly { app: AppKey; status: TargetStatus }[],
    now: Date,
  ): Promise<CreatedPolledStatus[]> {
    const stored = await batchGet(
      this.table,
      observations.map(({ app }) => keys.targetStatus(app)),
      true,
    );
    const storedApps = new Set(stored.map((item) => (item as unknown as StatusItem).appKey));
    const observedAt = now.toISOString();
    const created: CreatedPolledStatus[] = [];
    const items: Record<string, unknown>[] = [];
    for (const { app, status } of observations) {
      if (storedApps.has(appKeyString(app))) continue;
      const print = fingerprint(status);
      items.push(statusItem(app, status, print, observedAt));
      created.push({ app, polled: { fingerprint: print, observedAt } });
    }
    await batchWrite(this.table, items.map(putRequest));
    return created;
  }

  /** `recordTargetStatus`, telling where the item stands after it (what a poll summary may hold for the app). */
  async recordPolledStatus(
    app: AppKey,
    status: TargetStatus,
    now: Date,
    options: { refreshAfterMs?: number; likelyNew?: boolean } = {},
  ): Promise<PolledRecord> {
    const print = fingerprint(status);
    const observedAt = now.toISOString();
    const written = (created: boolean): PolledRecord => ({
      changed: true,
      written: true,
      created,
      outcome: 'written',
      polled: { fingerprint: print, observedAt },
    });
    if (options.likelyNew && (await this.put(app, status, print, observedAt, undefined))) return written(true);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const stored = await this.read(app);
      // An observation older than the stored one is news from the past: drop it.
      if (stored && stored.observedAt > observedAt) {
        return { changed: false, written: false, created: false, outcome: 'older' };
      }
      if (stored && stored.fingerprint === print) {
        const age = now.getTime() - Date.parse(stored.observedAt);
        if (options.refreshAfterMs === undefined || age < options.refreshAfterMs) {
          const polled = { fingerprint: print, observedAt: stored.observedAt };
          return { changed: false, written: false, created: false, outcome: 'unchanged', polled };
        }
        const refreshed = await this.refresh(app, print, observedAt);
        if (refreshed) {
          const polled = { fingerprint: print, observedAt };
          return { changed: false, written: true, created: false, outcome: 'unchanged', polled };
        }
        continue;
      }
      if (await this.put(app, status, print, observedAt, stored)) {
        return written(stored === undefined);
      }
      // Someone recorded another status meanwhile: read again and decide again.
    }
    throw new Error(`target status of ${appKeyString(app)} kept changing under us; giving up for now`);
  }

  /** Writes the status over `stored` (what was read; undefined: no item), unless the item moved on. */
  private async put(
    app: AppKey,
    status: TargetStatus,
    print: string,
    observedAt: string,
    stored: StatusItem | undefined,
  ): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new PutCommand({
          TableName: this.table.tableName,
          Item: statusItem(app, status, print, observedAt),
          ConditionExpression: stored
            ? 'fingerprint = :previous AND observedAt <= :observedAt'
            : 'attribute_not_exists(pk)',
          ExpressionAttributeValues: stored
            ? { ':previous': stored.fingerprint, ':observedAt': observedAt }
            : undefined,
        }),
      ),
    );
  }

  private async refresh(app: AppKey, print: string, observedAt: string): Promise<boolean> {
    return conditionHeld(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.targetStatus(app),
          UpdateExpression: 'SET observedAt = :observedAt',
          ConditionExpression: 'fingerprint = :print AND observedAt <= :observedAt',
          ExpressionAttributeValues: { ':print': print, ':observedAt': observedAt },
        }),
      ),
    );
  }

  private async read(app: AppKey): Promise<StatusItem | undefined> {
    const result = await this.table.documents.send(
      new GetCommand({ TableName: this.table.tableName, Key: keys.targetStatus(app), ConsistentRead: true }),
    );
    return result.Item as StatusItem | undefined;
  }
}

/** A status item as first written, or written anew when the status changed. */
function statusItem(app: AppKey, status: TargetStatus, print: string, observedAt: string): Record<string, unknown> {
  return {
    ...keys.targetStatus(app),
    entity: 'target-status',
    appKey: appKeyString(app),
    status,
    fingerprint: print,
    observedAt,
    changedAt: observedAt,
  };
}

function observed(item: StatusItem): ObservedTargetStatus {
  return { status: decodeTargetStatus(item.status), observedAt: item.observedAt, changedAt: item.changedAt };
}
