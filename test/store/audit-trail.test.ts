// walkAuditTrail: newest first, page by page, and it says how the walk ended (the facts' reader treats a spent budget
// as "cannot tell").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { walkAuditTrail } from '../../lib/store/index.js';
import { MemoryStore } from '../../lib/testing/memory-store.js';

const PIPELINE = { namespace: 'flux-system', name: 'podinfo' };

async function trailOf(count: number): Promise<MemoryStore> {
  const store = new MemoryStore();
  for (let i = 0; i < count; i += 1) {
    const at = new Date(Date.UTC(2026, 10, 24, 10, i)).toISOString();
    await store.appendAudit({
      at,
      pipeline: PIPELINE,
      type: 'approved',
      env: 'prod',
      revision: `1.0.${i}`,
      message: '',
    });
  }
  return store;
}

describe('walkAuditTrail', () => {
  it('hands every entry newest first and ends with the trail', async () => {
    const seen: string[] = [];
    const end = await walkAuditTrail(await trailOf(5), PIPELINE, { pageSize: 2 }, (entry) => {
      seen.push(entry.revision ?? '');
      return 'continue';
    });
    assert.deepEqual(seen, ['1.0.4', '1.0.3', '1.0.2', '1.0.1', '1.0.0']);
    assert.equal(end, 'ended');
  });

  it('stops when the reader says so, and says when the page budget ran out first', async () => {
    const store = await trailOf(5);
    let visited = 0;
    const stopped = await walkAuditTrail(store, PIPELINE, { pageSize: 2 }, () =>
      ++visited === 3 ? 'stop' : 'continue',
    );
    assert.deepEqual([stopped, visited], ['stopped', 3]);
    visited = 0;
    const spent = await walkAuditTrail(store, PIPELINE, { pageSize: 2, maxPages: 2 }, () => {
      visited += 1;
      return 'continue';
    });
    assert.deepEqual([spent, visited], ['budget-spent', 4]);
    // As DynamoDB does, a page filled to its limit comes with a cursor: the end shows only on a page short of it.
    const whole = await walkAuditTrail(store, PIPELINE, { pageSize: 6, maxPages: 1 }, () => 'continue');
    assert.equal(whole, 'ended', 'a last page that holds the rest is the end, not a spent budget');
  });
});
