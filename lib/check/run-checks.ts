// Runs every check of the given pipelines: for each environment in order, each target's rows, then the rows of how
// it is promoted into. Targets and environments are worked through a few at a time (the reads of one cluster or one
// repository shared), and each failure stays in its own rows: an unreachable cluster or a rejected token fails those
// rows and no others.
//
// A new kind of check gets its job here, next to the others of its environment. A pipeline's source is checked with
// its first environment, read like a target's app.
import { redact } from '../logging/redaction.js';
import { appKeyOf, appKeyString, objectKeyString, type Pipeline } from '../pipeline/model.js';
import { mapLimit } from '../util/map-limit.js';
import type { CheckRow } from './check-row.js';
import { GitProbes } from './git-probes.js';
import { notificationRow } from './notification-checks.js';
import type { CheckPorts, NotificationSinksAnswer } from './ports.js';
import { promotionInto } from './promoted-environments.js';
import { pullRequestRows } from './pull-request-checks.js';
import { targetRows, type AppRead } from './target-checks.js';
import { verificationRows } from './verification-checks.js';
import { errorMessage } from '../util/error-message.js';

const DEFAULT_CONCURRENCY = 8;

/**
 * Every row, pipeline by pipeline in the given order, environment by environment. Never throws for a failed check.
 * Messages are redacted: a failed check repeats what a cluster or Git host answered.
 */
export async function checkPipelines(pipelines: readonly Pipeline[], ports: CheckPorts): Promise<CheckRow[]> {
  const concurrency = ports.concurrency ?? DEFAULT_CONCURRENCY;
  const probes = new GitProbes(ports, concurrency);
  // A target listed in several environments is read once.
  const reads = new Map<string, Promise<Record<string, unknown> | undefined>>();
  const read: AppRead = (app) => {
    const key = appKeyString(app);
    let reading = reads.get(key);
    if (!reading) {
      reading = ports.clusters.getApp(app);
      reads.set(key, reading);
    }
    return reading;
  };
  let sinks: Promise<NotificationSinksAnswer | undefined> | undefined;
  const notificationSinks = () =>
    (sinks ??= ports.notificationSinks
      ? ports.notificationSinks().catch((error: unknown): NotificationSinksAnswer => ({
          known: false,
          reason: errorMessage(error),
          remedy: 'see docs/notifications.md',
        }))
      : Promise.resolve(undefined));

  const jobs: (() => Promise<CheckRow[]>)[] = [];
  for (const pipeline of pipelines) {
    pipeline.environments.forEach((env, index) => {
      const place = { pipeline: objectKeyString(pipeline), environment: env.name };
      for (const target of env.targets) jobs.push(() => targetRows(place, appKeyOf(pipeline, target), read));
      const { source } = pipeline;
      if (index === 0 && source) jobs.push(() => targetRows(place, source, read));
      const way = promotionInto(pipeline, env, index);
      if (way?.strategy === 'pull-request') jobs.push(() => pullRequestRows(place, pipeline, way.pullRequest, probes));
      else if (way?.strategy === 'notification') {
        jobs.push(async () => [notificationRow(place, await notificationSinks())]);
      }
      if (env.verification) jobs.push(() => verificationRows(place, pipeline, env, ports.evaluateCheck));
    });
  }
  const rows = (await mapLimit(jobs, concurrency, (job) => job())).flat();
  return rows.map((row) => ({ ...row, message: redact(row.message) }));
}
