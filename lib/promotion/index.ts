export * from './port.js';
export { RecordingPromoter, type RecordedPromotion } from './recording.js';
export { StrategyPromoter, type Strategies } from './strategies.js';
export type { EvidenceTarget, PromotionEvidence } from '../decision/promotion-evidence.js';
