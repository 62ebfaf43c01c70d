// The public API of lib/check: whether the promotions of pipelines can work, checked before the first one
// (`pipelinectl check`).
export { CHECK_KINDS, type CheckKind } from './check-kinds.js';
export {
  CHECK_OUTCOMES,
  summarize,
  type CheckOutcome,
  type CheckReason,
  type CheckRow,
  type CheckSummary,
  type CheckTarget,
} from './check-row.js';
export type { CheckPorts, NotificationSinksAnswer } from './ports.js';
export { checkPipelines } from './run-checks.js';
