// Recording the facts the metrics are computed from (`environment-passed`, `environment-regressed`): the verifier
// compares each environment's health (environment-health.ts) with the newest fact it recorded for that environment,
// and appends one only when they differ, so a redundant message, or a status message that changes while the
// environment stays healthy, writes nothing. Verifiers racing on the same change (at start-up, a `resume` check and a
// poll's decision read the same statuses) each see no fact yet: the one that wins the store's claim of the fact,
// keyed by the spell it starts, appends it, the others write nothing.
import { pipelineKeyOf, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import type { AuditEntry, ObservedTargetStatus } from '../store/port.js';
import { walkAuditTrail } from '../store/index.js';
import type { VerifierDeps } from './deps.js';
import { tellListeners } from './effect-listener.js';
import { environmentHealth, type EnvironmentHealth } from './environment-health.js';
import { VERIFIER_ACTOR } from './effect-audit.js';

/** The audit entry types that are facts about an environment's health rather than effects the verifier made. */
export const ENVIRONMENT_FACT_TYPES = ['environment-passed', 'environment-regressed'] as const;

export function isEnvironmentFact(entry: Pick<AuditEntry, 'type'>): boolean {
  return (ENVIRONMENT_FACT_TYPES as readonly string[]).includes(entry.type);
}

/**
 * Only health that began this recently is compared and recorded. The verifier decides on a pipeline right after a
 * status change and the poller checks every pipeline every few minutes, so a change is seen well within this; an
 * older one was recorded then (or, after an outage longer than this, is missing from the metrics: never wrong in
 * them). It bounds what is read: steady pipelines read no audit entry at all.
 */
export const FACT_HORIZON_MS = 6 * 3_600_000;

/** Audit entries read per page while looking for the newest facts. */
const PAGE_SIZE = 50;
/** Pages read at most: a trail busier than this within the horizon leaves the facts unrecorded rather than doubled. */
const MAX_PAGES = 4;

type Due = Exclude<EnvironmentHealth, { health: 'neither' }>;

export type FactDeps = Pick<VerifierDeps, 'store' | 'now' | 'logger' | 'listeners'>;

/** Appends the facts that the pipeline's current health adds to its trail; returns the ones it appended. */
export async function recordEnvironmentFacts(
  pipeline: Pipeline,
  statuses: ReadonlyMap<string, ObservedTargetStatus>,
  deps: FactDeps,
): Promise<AuditEntry[]> {
  const key = pipelineKeyOf(pipeline);
  const horizon = new Date(deps.now().getTime() - FACT_HORIZON_MS).toISOString();
  const due = environmentHealth(pipeline, statuses).filter(
    (health): health is Due => health.health !== 'neither' && health.since >= horizon,
  );
  if (due.length === 0) return [];
  const newest = await newestFacts(
    deps,
    key,
    due.map((health) => health.env),
    horizon,
  );
  if (newest === undefined) {
    deps.logger.debug('audit trail too busy to compare environment facts; not recorded', { pipeline: key.name });
    return [];
  }
  const appended: AuditEntry[] = [];
  for (const health of due) {
    const last = newest.get(health.env);
    const entry = factOf(key, health);
    const same =
      last?.type === entry.type && (entry.type === 'environment-regressed' || last.revision === entry.revision);
    if (same || !(await claimFact(deps, entry))) continue;
    await deps.store.appendAudit(entry);
    await tellListeners(deps, { entry, pipeline });
    appended.push(entry);
  }
  return appended;
}

/**
 * Claims the fact for this verifier: true for the first caller only. The claim is the store's once-only claim that
 * notifications use, in kinds of its own (`{type}@{spell start}`), so that no message to people shares its key.
 */
async function claimFact(deps: FactDeps, fact: AuditEntry & { env: string }): Promise<boolean> {
  return deps.store.claimNotification(
    fact.pipeline,
    fact.env,
    fact.revision ?? '',
    `${fact.type}@${fact.at}`,
    deps.now(),
  );
}

function factOf(pipeline: ObjectKey, health: Due): AuditEntry & { env: string } {
  const { env, since: at } = health;
  const actor = VERIFIER_ACTOR;
  if (health.health === 'passed') {
    const { revision } = health;
    return {
      at,
      pipeline,
      type: 'environment-passed',
      env,
      revision,
      message: `every target of ${env} runs ${revision} and is Ready`,
      actor,
    };
  }
  const { revision } = health;
  return {
    at,
    pipeline,
    type: 'environment-regressed',
    env,
    ...(revision === undefined ? {} : { revision }),
    message: revision === undefined ? `a target of ${env} failed` : `a target of ${env} failed on ${revision}`,
    actor,
  };
}

/**
 * The newest `environment-passed`/`environment-regressed` entry of each of `envs` at or after `horizon` (absent:
 * none there). Undefined when the trail was not read back to the horizon within the page budget.
 */
async function newestFacts(
  deps: FactDeps,
  key: ObjectKey,
  envs: readonly string[],
  horizon: string,
): Promise<Map<string, AuditEntry> | undefined> {
  const found = new Map<string, AuditEntry>();
  const end = await walkAuditTrail(deps.store, key, { pageSize: PAGE_SIZE, maxPages: MAX_PAGES }, (entry) => {
    if (entry.at < horizon) return 'stop';
    if (isEnvironmentFact(entry) && entry.env !== undefined && envs.includes(entry.env) && !found.has(entry.env)) {
      found.set(entry.env, entry);
    }
    return found.size === envs.length ? 'stop' : 'continue';
  });
  return end === 'budget-spent' ? undefined : found;
}
