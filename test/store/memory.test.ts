// The store contract against the in-memory Store (lib/testing/memory-store.ts) that the verifier's tests use, so a
// rule it passes there holds on DynamoDB too.
import { MemoryStore } from '../../lib/testing/memory-store.js';
import { storeContract } from './store-contract.js';

storeContract('in-memory store', () => {
  const store = new MemoryStore();
  return Promise.resolve({
    store,
    writes: () => store.counts.writes,
    reads: () => store.counts.reads,
    resetCounts: () => store.resetCounts(),
    overwriteLease: (pipeline, env, revision, leaseExpiresAt) => {
      store.patchPromotion(pipeline, env, revision, { leaseExpiresAt });
      return Promise.resolve();
    },
    stop: () => Promise.resolve(),
  });
});
