// What the notification tests share: a pipeline as the verifier decides on it, the effects it tells its listeners of,
// a logger that keeps every line as text, so a test can look for a secret in all of them, and a PutEvents client.
import type { PutEventsCommand, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { ConfigSyncFailure } from '../../lib/config-source/sync.js';
import type { Logger } from '../../lib/logging/logger.js';
import type { PutEventsClient } from '../../lib/notify/index.js';
import type { NotifyNarrowing, Pipeline, PipelineEnvironment } from '../../lib/pipeline/model.js';
import type { Promotion } from '../../lib/pipeline/promotion.js';
import type { AuditEntry } from '../../lib/store/port.js';
import type { VerifierEffect } from '../../lib/verifier/index.js';

export const PIPELINE_KEY = { namespace: 'flux-system', name: 'podinfo' };
export const CONFIG_SOURCE_KEY = { namespace: 'flux-system', name: 'fleet' };
export const BAD_COMMIT = 'main@sha1:731f7eaddfb6af01cb2173e18f0f75b0ba780ef1';

/** What the ConfigSource sync tells its `onFailure` of a commit that failed validation: one bad file. */
export function configSyncFailure(fields: Partial<ConfigSyncFailure> = {}): ConfigSyncFailure {
  const revision = fields.revision ?? BAD_COMMIT;
  return {
    source: CONFIG_SOURCE_KEY,
    revision,
    reason: 'ValidationFailed',
    message:
      `${revision}: 1 problem: pipelines/podinfo.yaml:8:7: Pipeline flux-system/podinfo: ` +
      'spec.environments[0].targetz: unknown field "targetz"',
    ...fields,
  };
}

/** podinfo through dev → staging → prod, prod manual; `notify` as given. */
export function podinfo(notify?: NotifyNarrowing): Pipeline {
  const cluster = { namespace: 'flux-system', name: 'fleet-eu' };
  const pullRequest: Promotion['strategy'] = {
    'pull-request': {
      type: 'github',
      url: 'https://github.com/acme/fleet',
      baseBranch: 'main',
      secretRef: { name: 'github' },
    },
  };
  const environment = (name: string, promotion?: Promotion): PipelineEnvironment => ({
    name,
    targets: [{ cluster, namespace: `podinfo-${name}` }],
    ...(promotion ? { promotion } : {}),
  });
  return {
    ...PIPELINE_KEY,
    appRef: { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'podinfo' },
    ...(notify ? { notify } : {}),
    environments: [
      environment('dev'),
      environment('staging', { strategy: pullRequest }),
      environment('prod', { manual: true, strategy: pullRequest }),
    ],
  };
}

/** The audit entry's fields (type and env required), and the effect's: `pipeline` is the definition. */
type EffectFields = Pick<AuditEntry, 'type' | 'env'> &
  Partial<Omit<AuditEntry, 'pipeline'>> &
  Omit<Partial<VerifierEffect>, 'entry'>;

/** The effect the verifier tells its listeners of, at 2026-11-01T10:00:00Z by default, revision 6.9.2. */
export function effect(fields: EffectFields): VerifierEffect {
  const { type, env, result, retryAt, error, pipeline = podinfo(), ...rest } = fields;
  const entry: AuditEntry = {
    at: '2026-11-01T10:00:00.000Z',
    pipeline: PIPELINE_KEY,
    type,
    env,
    revision: '6.9.2',
    message: `${type} in ${env ?? 'no environment'}`,
    actor: 'verifier-1',
    ...rest,
  };
  return {
    entry,
    pipeline,
    ...(result === undefined ? {} : { result }),
    ...(retryAt === undefined ? {} : { retryAt }),
    ...(error === undefined ? {} : { error }),
  };
}

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  attributes: Record<string, unknown>;
}

/** A Logger that keeps every line; `text()` is all of them as one string, attributes included. */
export function recordingLogger(): Logger & { lines: LogLine[]; warnings: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, attributes: Record<string, unknown> = {}): void => {
      lines.push({ level, message, attributes });
    };
  return {
    lines,
    get warnings() {
      return lines.filter((line) => line.level === 'warn');
    },
    text: () => lines.map((line) => `${line.level} ${line.message} ${JSON.stringify(line.attributes)}`).join('\n'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

/** A PutEvents client that keeps the entries it is sent and answers as told. */
export function fakePutEvents(failWith?: string): PutEventsClient & { entries: PutEventsRequestEntry[] } {
  const entries: PutEventsRequestEntry[] = [];
  return {
    entries,
    send: (command: PutEventsCommand) => {
      entries.push(...(command.input.Entries ?? []));
      return Promise.resolve(
        failWith === undefined
          ? { FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] }
          : { FailedEntryCount: 1, Entries: [{ ErrorCode: failWith, ErrorMessage: 'refused' }] },
      );
    },
  };
}
