export { createVerifier } from './verifier.js';
export { evaluatePipeline } from './evaluate.js';
export {
  DEFAULT_SETTINGS,
  type ConfigSourceAccess,
  type VerificationAccess,
  type VerifierDeps,
  type VerifierSettings,
} from './deps.js';
export { DeferredDecisions } from './deferred-decisions.js';
export { RecentPipelines } from './recent-pipelines.js';
export { RecentReads } from './recent-reads.js';
export { VERIFIER_ACTOR } from './effect-audit.js';
export type { EffectListener, VerifierEffect } from './effect-listener.js';
