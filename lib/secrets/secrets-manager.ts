// Secrets in AWS Secrets Manager: the Secret `ns/name` is the secret `<prefix>ns/name`, whose value is the JSON
// object of its keys (what `pipelinectl apply` writes). Values are cached briefly, so a warm function does not
// call Secrets Manager for every event, and a rotated value is picked up within the cache's lifetime.
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { registerSecretValues } from '../logging/redaction.js';
import type { ObjectKey } from '../pipeline/model.js';
import type { SecretSource } from './port.js';

export interface SecretsManagerSourceOptions {
  client: SecretsManagerClient;
  /** Prepended to `ns/name`, e.g. `pipeline-controller/`. */
  prefix: string;
  /** How long a value is reused, in ms. Default 5 minutes. */
  cacheMs?: number;
  now?: () => number;
}

export class SecretsManagerSecretSource implements SecretSource {
  private readonly cache = new Map<string, { at: number; value: Readonly<Record<string, string>> | undefined }>();

  constructor(private readonly options: SecretsManagerSourceOptions) {}

  getSecret(key: ObjectKey): Promise<Readonly<Record<string, string>> | undefined> {
    return this.getById(`${this.options.prefix}${key.namespace}/${key.name}`);
  }

  /** A secret by its Secrets Manager id or ARN, without the prefix (e.g. the master key). */
  async getById(id: string): Promise<Readonly<Record<string, string>> | undefined> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.cache.get(id);
    if (cached && now - cached.at < (this.options.cacheMs ?? 300_000)) return cached.value;
    const value = await this.fetch(id);
    this.cache.set(id, { at: now, value });
    return value;
  }

  private async fetch(id: string): Promise<Readonly<Record<string, string>> | undefined> {
    let text: string | undefined;
    try {
      const result = await this.options.client.send(new GetSecretValueCommand({ SecretId: id }));
      text = result.SecretString;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text ?? '');
    } catch {
      // Never include the text: it is the secret.
      throw new Error(`secret ${id} is not a JSON object of string values`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(`secret ${id} is not a JSON object of string values`);
    }
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(parsed)) {
      if (typeof value !== 'string') throw new Error(`secret ${id}: key ${name} is not a string`);
      values[name] = value;
    }
    registerSecretValues(Object.values(values));
    return values;
  }
}
