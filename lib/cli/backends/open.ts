// Opening the Backend the CLI's flags name. Each backend is imported only when chosen, so a local command never
// loads the AWS SDK clients, and the Backend interface (../backend.ts) knows none of its implementations.
import type { Backend } from '../backend.js';
import type { AwsBackendOptions } from './aws.js';
import type { MissingStore } from './local.js';
import { DEFAULT_DATA_DIR } from '../../local/data-dir.js';

export { DEFAULT_DATA_DIR } from '../../local/data-dir.js';

export interface BackendOptions {
  /** The local data directory (default `.data`). Ignored when `aws` is set. */
  dataDir?: string;
  aws?: AwsBackendOptions;
  /** What a data directory that holds no store gets (./local.ts); default `refuse`: only some commands make one. */
  missingStore?: MissingStore;
}

export async function openBackend(options: BackendOptions): Promise<Backend> {
  if (options.aws) {
    const { openAwsBackend } = await import('./aws.js');
    return openAwsBackend(options.aws);
  }
  const { openLocalBackend, STDERR_WARNINGS } = await import('./local.js');
  return openLocalBackend(options.dataDir ?? DEFAULT_DATA_DIR, STDERR_WARNINGS, {
    missingStore: options.missingStore ?? 'refuse',
  });
}
