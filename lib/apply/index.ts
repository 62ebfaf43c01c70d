// The public API of lib/apply: applying a configuration and deleting objects, over ApplyPorts.
export { applyConfiguration, type ApplyOptions, type ApplyRefusal, type ApplyResult } from './apply.js';
export {
  deleteObject,
  RefusedChangeError,
  type DeletableKind,
  type DeleteOptions,
  type DeleteResult,
} from './delete.js';
export type { ApplyPorts, NotificationSinksInfo } from './ports.js';
