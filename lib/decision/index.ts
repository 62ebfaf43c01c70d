// The promotion decision's public API: the pure `decide` function and its input and output types, and the promotion
// record's lifecycle, which the store's claim, the CLI's retry and the local mode read as well.
export { decide } from './decide.js';
export type * from './types.js';
export { isClaimable, promotionStage, type PromotionStage } from './promotion-lifecycle.js';
