// Opening the Backend the CLI's flags name. Each backend is imported only when chosen, so a local command never
// loads the AWS SDK clients, and the Backend interface (../backend.ts) knows none of its implementations.
import type { Backend } from '../backend.js';
import type { AwsBackendOptions } from './aws.js';

export interface BackendOptions {
  /** The local data directory (default `.data`). Ignored when `aws` is set. */
  dataDir?: string;
  aws?: AwsBackendOptions;
}

export async function openBackend(options: BackendOptions): Promise<Backend> {
  if (options.aws) {
    const { openAwsBackend } = await import('./aws.js');
    return openAwsBackend(options.aws);
  }
  const { openLocalBackend } = await import('./local.js');
  return openLocalBackend(options.dataDir ?? '.data');
}
