// The poll summary (docs/architecture.md, "The poll summary"): per app, the fingerprint of the status its item holds,
// kept on the usage item of the app's (cluster, kind, namespace) so that a poll reads it with the pair's usage, in
// the one Query it makes anyway. It is a cache: each usage item carries a `pollVersion` that every write of an entry
// moves on, writes are conditional on the version read, and a writer that changed a status outside a poll removes
// the app's entry after its write (`forgetPolledStatus`). An apply never writes these attributes and a removed usage
// item takes them with it: a lost summary costs the next poll one status read per app.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WatchedKind } from '../../config/schema.js';
import type { TargetStatus } from '../../flux/target-status.js';
import type { AppKey, ObjectKey } from '../../pipeline/model.js';
import type { ClusterKindPoll, PolledStatus } from '../port.js';
import { usageOf } from './configuration.js';
import { fingerprint } from './fingerprint.js';
import { queryAll } from './query.js';
import { isConditionFailure, keys, type TableContext, unlessConditionFailed } from './table.js';

/** The attribute of a usage item holding the summary entry of app `name` (in the item's namespace). */
const entryAttribute = (name: string): string => `polled ${name}`;
const ENTRY_PREFIX = entryAttribute('');
const VERSION_ATTRIBUTE = 'pollVersion';
/**
 * Entries set or removed per UpdateItem: keeps the expression under DynamoDB's 4 KB. The chunks are written in turn,
 * so a namespace whose summary would not fit its item (some 4,000 apps at about 90 bytes each, next to its usage)
 * keeps the chunks that fit: the rest of its apps are read status by status, as without a summary.
 */
const CHANGES_PER_UPDATE = 100;

export class DynamoPollSummaries {
  constructor(private readonly table: TableContext) {}

  async getClusterKindPoll(cluster: ObjectKey, kind: WatchedKind): Promise<ClusterKindPoll | undefined> {
    // Consistent: an entry removed by `forgetPolledStatus` must not be read back from a stale replica.
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.usagePartition, ':prefix': keys.usagePrefix(cluster, kind) },
      ConsistentRead: true,
    });
    const usage = usageOf(items)[0];
    if (!usage) return undefined;
    const versions: Record<string, number> = {};
    const entries = new Map<string, PolledStatus>();
    for (const item of items) {
      const namespace = String(item.namespace);
      versions[namespace] = Number(item[VERSION_ATTRIBUTE] ?? 0);
      for (const [attribute, value] of Object.entries(item)) {
        if (!attribute.startsWith(ENTRY_PREFIX)) continue;
        const entry = value as Partial<PolledStatus>;
        if (typeof entry.fingerprint !== 'string' || typeof entry.observedAt !== 'string') continue;
        entries.set(`${namespace}/${attribute.slice(ENTRY_PREFIX.length)}`, {
          fingerprint: entry.fingerprint,
          observedAt: entry.observedAt,
        });
      }
    }
    const pristine = Object.values(versions).every((version) => version === 0);
    return { usage, summary: { version: JSON.stringify(versions), pristine, entries } };
  }

  statusFingerprint(status: TargetStatus): string {
    return fingerprint(status);
  }

  async putPollSummary(
    cluster: ObjectKey,
    kind: WatchedKind,
    version: string,
    changes: ReadonlyMap<string, PolledStatus | undefined>,
  ): Promise<boolean> {
    const versions = JSON.parse(version) as Record<string, number>;
    const byNamespace = new Map<string, [string, PolledStatus | undefined][]>();
    for (const [id, entry] of changes) {
      const slash = id.indexOf('/');
      const namespace = id.slice(0, slash);
      byNamespace.set(namespace, [...(byNamespace.get(namespace) ?? []), [id.slice(slash + 1), entry]]);
    }
    let complete = true;
    for (const [namespace, namespaceChanges] of byNamespace) {
      let expected = versions[namespace];
      // A namespace the read did not see (added since) is left to the next poll.
      if (expected === undefined) {
        complete = false;
        continue;
      }
      const key = keys.usage(cluster, kind, namespace);
      for (let start = 0; start < namespaceChanges.length; start += CHANGES_PER_UPDATE) {
        const written = await this.update(key, expected, namespaceChanges.slice(start, start + CHANGES_PER_UPDATE));
        if (!written) {
          complete = false;
          break;
        }
        expected += 1;
      }
    }
    return complete;
  }

  async forgetPolledStatus(app: AppKey): Promise<void> {
    // No usage item, no summary: nothing to forget.
    await unlessConditionFailed(
      this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.usage(app.cluster, app.kind, app.namespace),
          // The version moves on even when there is no entry: a poll that read before may be about to write one.
          UpdateExpression: 'REMOVE #entry ADD #version :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#entry': entryAttribute(app.name), '#version': VERSION_ATTRIBUTE },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      ),
    );
  }

  /** One UpdateItem of a usage item's entries over `expected`; false when another writer moved it on. */
  private async update(
    key: { pk: string; sk: string },
    expected: number,
    changes: readonly [string, PolledStatus | undefined][],
  ): Promise<boolean> {
    const names: Record<string, string> = { '#version': VERSION_ATTRIBUTE };
    const values: Record<string, unknown> = { ':one': 1 };
    const set: string[] = [];
    const remove: string[] = [];
    changes.forEach(([name, entry], index) => {
      names[`#e${index}`] = entryAttribute(name);
      if (entry) {
        values[`:e${index}`] = { fingerprint: entry.fingerprint, observedAt: entry.observedAt };
        set.push(`#e${index} = :e${index}`);
      } else {
        remove.push(`#e${index}`);
      }
    });
    // Never creates a usage item: a pair no pipeline uses any more has no summary.
    const condition =
      expected === 0
        ? 'attribute_exists(pk) AND (attribute_not_exists(#version) OR #version = :expected)'
        : 'attribute_exists(pk) AND #version = :expected';
    values[':expected'] = expected;
    try {
      await this.table.documents.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: key,
          UpdateExpression:
            (set.length > 0 ? `SET ${set.join(', ')} ` : '') +
            (remove.length > 0 ? `REMOVE ${remove.join(', ')} ` : '') +
            'ADD #version :one',
          ConditionExpression: condition,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error) || isItemTooLarge(error)) return false;
      throw error;
    }
  }
}

/** A summary that would push its usage item past DynamoDB's 400 KB is simply not written. */
function isItemTooLarge(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException' && /size/i.test(error.message);
}
