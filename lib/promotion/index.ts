export * from './port.js';
export { StrategyPromoter, type Strategies } from './strategies.js';
export type { EvidenceTarget, PromotionEvidence } from '../decision/promotion-evidence.js';
