// A deployed stack as a Backend (being written).
import type { AwsBackendOptions, Backend } from '../backend.js';

export function openAwsBackend(_options: AwsBackendOptions): Promise<Backend> {
  return Promise.reject(new Error('the AWS backend is not written yet'));
}
