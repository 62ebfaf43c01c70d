// The promotion decision's public API: the pure `decide` function and its input and output types, the promotion
// record's lifecycle, which the store's claim, the CLI's retry and the local mode read as well, and the time left of
// a soak as the views show it, and the rollback record's key, which the verifier, the views and `retry` read.
export { decide } from './decide.js';
export type * from './types.js';
export { isClaimable, promotionStage, type PromotionStage } from './promotion-lifecycle.js';
export { timeLeftUntil } from './soak.js';
export { timeDependence, type TimeDependence } from './time-dependence.js';
export { rollbackRecordEnv, rolledBackEnv } from './rollback-record.js';
export type { EvidenceTarget } from './promotion-evidence.js';
export { servesInputs } from './served-input.js';
export { holdsTheTrain, type GroupMemberWait, type GroupObservation } from './release-train.js';
