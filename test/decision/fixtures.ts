// Builders and a table runner for the decision tests. Targets are written the way the explanations name them,
// `clusterNamespace/clusterName namespace` (e.g. `flux-system/prod-eu apps`), so a row reads like `pipelinectl explain`.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { AppKind, Promotion } from '../../lib/config/schema.js';
import { decide } from '../../lib/decision/index.js';
import type { FreezeSwitch } from '../../lib/pipeline/freeze.js';
import type {
  Action,
  Decision,
  PromotionEvidence,
  ApprovalMarker,
  DecisionInput,
  EnvironmentReason,
  EnvironmentState,
  GroupObservation,
  PromotionRecord,
  ServedInput,
  SourceReason,
  SourceState,
} from '../../lib/decision/index.js';
import type { TargetStatus } from '../../lib/flux/target-status.js';
import { unreadableTarget } from '../../lib/flux/target-status.js';
import { appKeyOf, appKeyString } from '../../lib/pipeline/model.js';
import { predecessorsOf } from '../../lib/pipeline/environment-graph.js';
import type { VerificationRecord } from '../../lib/decision/verification.js';
import type { Pipeline, PipelineEnvironment, PipelineTarget, SourceObject } from '../../lib/pipeline/model.js';

export const NOW = new Date('2025-10-01T12:00:00.000Z');

/** An ISO 8601 time `offset` minutes from NOW (negative: in the past). */
export function minutesFromNow(offset: number): string {
  return new Date(NOW.getTime() + offset * 60_000).toISOString();
}

// ---------------------------------------------------------------- promotion blocks (Weave shape)

export const notification: Promotion = { strategy: { notification: {} } };
export const pullRequest: Promotion = {
  strategy: {
    'pull-request': {
      type: 'github',
      url: 'https://github.com/acme/fleet',
      baseBranch: 'main',
      secretRef: { name: 'github-token' },
    },
  },
};
export const manualPullRequest: Promotion = { manual: true, ...pullRequest };
export const manualNotification: Promotion = { manual: true, ...notification };
export const externalService: Promotion = { strategy: { 'external-service': {} } };
export const manualExternalService: Promotion = { manual: true, ...externalService };

// ---------------------------------------------------------------- pipelines

export interface EnvironmentSpec {
  name: string;
  /** `spec.environments[].after`: the environments this one follows (default: the one listed before). */
  after?: string[];
  /** `flux-system/prod-eu apps`: the GitopsCluster `flux-system/prod-eu`, the app in namespace `apps`. */
  targets: string[];
  /** The environment's own promotion block; without it the pipeline's applies (Weave `GetPromotion`). */
  promotion?: Promotion;
  /** `spec.environments[].soak`, e.g. `30m`. */
  soak?: string;
  freeze?: PipelineEnvironment['freeze'];
  approval?: PipelineEnvironment['approval'];
  rollback?: PipelineEnvironment['rollback'];
  verification?: PipelineEnvironment['verification'];
}

export interface PipelineSpec {
  environments: EnvironmentSpec[];
  promotion?: Promotion;
  kind?: AppKind;
  /** `spec.source`: observed statuses name it `source`. */
  source?: SourceObject;
}

/** A resolved Pipeline `flux-system/podinfo`, with each environment's promotion in force already chosen. */
export function pipeline(spec: PipelineSpec): Pipeline {
  const kind = spec.kind ?? 'HelmRelease';
  return {
    namespace: 'flux-system',
    name: 'podinfo',
    appRef:
      kind === 'HelmRelease'
        ? { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind, name: 'podinfo' }
        : { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind, name: 'podinfo' },
    ...(spec.promotion ? { promotion: spec.promotion } : {}),
    ...(spec.source ? { source: spec.source } : {}),
    environments: spec.environments.map((env) => {
      const promotion = env.promotion ?? spec.promotion;
      return {
        name: env.name,
        ...(env.after ? { after: env.after } : {}),
        targets: env.targets.map(target),
        ...(promotion ? { promotion } : {}),
        ...(env.soak ? { soak: env.soak } : {}),
        ...(env.freeze ? { freeze: env.freeze } : {}),
        ...(env.approval ? { approval: env.approval } : {}),
        ...(env.rollback ? { rollback: env.rollback } : {}),
        ...(env.verification ? { verification: env.verification } : {}),
      };
    }),
  };
}

/** dev (one target) → staging (one target) → prod (two clusters), all taking the pipeline-level `promotion`. */
export function threeEnvironments(promotion: Promotion | undefined = pullRequest, kind?: AppKind): Pipeline {
  return pipeline({
    promotion,
    kind,
    environments: [
      { name: 'dev', targets: ['flux-system/dev apps'] },
      { name: 'staging', targets: ['flux-system/staging apps'] },
      { name: 'prod', targets: ['flux-system/prod-eu apps', 'flux-system/prod-us apps'] },
    ],
  });
}

function target(text: string): PipelineTarget {
  const match = /^([^/\s]+)\/(\S+) (\S+)$/.exec(text);
  if (!match?.[1] || !match[2] || !match[3])
    throw new Error(`bad target "${text}": want "clusterNs/cluster namespace"`);
  return { cluster: { namespace: match[1], name: match[2] }, namespace: match[3] };
}

// ---------------------------------------------------------------- observed statuses

/** Ready on `revision`: the Helm upgrade to it succeeded and every check passed. */
export function healthy(revision: string): TargetStatus {
  return {
    phase: 'Ready',
    reason: 'Deployed',
    message: `Helm upgrade succeeded with chart podinfo@${revision}`,
    revision,
  };
}

/** Flux is done with the current spec and it is not healthy; `revision` undefined when nothing runs. */
export function unhealthy(revision: string | undefined, message: string): TargetStatus {
  const status: TargetStatus = { phase: 'Failed', reason: 'ReconciliationFailed', message };
  return revision === undefined ? status : { ...status, revision };
}

/** Flux is still working on the current spec: checked again shortly (docs/flux-status.md). */
export function unsettled(revision: string, message = 'Running upgrade action for release apps/podinfo'): TargetStatus {
  return { phase: 'Progressing', reason: 'Reconciling', message, revision };
}

/** `spec.suspend` is true: Flux keeps `revision` running and will not pick up a promotion until it is resumed. */
export function suspended(
  revision: string,
  message = `suspended (spec.suspend): Flux does not reconcile it until it is resumed; runs ${revision}`,
): TargetStatus {
  return { phase: 'Suspended', reason: 'Suspended', message, revision };
}

/** A target whose object could not be read, or (reason NotFound) is not on its cluster. */
export const unreadable = unreadableTarget;

/**
 * The observed map, keyed like the store keys it; `source` is the pipeline's source object. A key that names no
 * target of the pipeline is a test bug.
 */
export function observedMap<T = TargetStatus>(subject: Pipeline, statuses: Record<string, T>): Map<string, T> {
  const targets = new Map(
    subject.environments
      .flatMap((env) => env.targets)
      .map((t) => [`${t.cluster.namespace}/${t.cluster.name} ${t.namespace}`, t]),
  );
  return new Map(
    Object.entries(statuses).map(([name, status]) => {
      if (name === 'source' && subject.source) return [appKeyString(subject.source), status];
      const found = targets.get(name);
      if (!found) throw new Error(`observed status for "${name}", which is no target of the pipeline`);
      return [appKeyString(appKeyOf(subject, found)), status];
    }),
  );
}

// ---------------------------------------------------------------- approvals and promotion records

export function requested(env: string, revision: string): ApprovalMarker {
  return { env, revision, requestedAt: minutesFromNow(-60) };
}

export function approved(env: string, revision: string, approvedBy = 'jane@acme.example'): ApprovalMarker {
  return { ...requested(env, revision), approvedAt: minutesFromNow(-5), approvedBy };
}

export function record(env: string, revision: string, fields: Partial<PromotionRecord> = {}): PromotionRecord {
  return { env, revision, state: 'pending', attempts: 1, updatedAt: minutesFromNow(-10), ...fields };
}

// ---------------------------------------------------------------- the table

export interface Row {
  name: string;
  pipeline: Pipeline;
  observed: Record<string, TargetStatus>;
  approvals?: ApprovalMarker[];
  promotions?: PromotionRecord[];
  /** When each target's status was first recorded as it is (ISO 8601), by target name like `observed`. */
  since?: Record<string, string>;
  now?: Date;
  /** The expected candidate; absent when none is expected. */
  candidate?: string;
  /** The exact actions, in order. */
  actions: Action[];
  /** The state of every environment. */
  states: Record<string, EnvironmentState>;
  /** The reason of every environment. */
  reasons: Record<string, EnvironmentReason>;
  /** Words each environment's message must contain, where they matter. */
  messages?: Record<string, string[]>;
  /** The `soakEndsAt` of every environment that has one (none when absent). */
  soakEndsAt?: Record<string, string>;
  /** For a pipeline with a source: where it stands, and words its message must contain. */
  source?: { state: SourceState; reason: SourceReason; version?: string; message?: string };
  /** The stop switches read (absent: not read). */
  freezes?: FreezeSwitch[];
  /** The revisions each environment passed on, newest first (absent: not read). */
  lastPassed?: Record<string, string[]>;
  /** The evidence of each promote action, by environment (actions are compared without it otherwise). */
  evidence?: Record<string, PromotionEvidence>;
  /** What the decision asks to read (checked only when given; `{}` means nothing). */
  needs?: NonNullable<Decision['needs']>;
  /** The `frozenUntil` of every environment that has one (checked only when given). */
  frozenUntil?: Record<string, string>;
  /** The `rollbackAt` of every environment that has one (checked only when given). */
  rollbackAt?: Record<string, string>;
  /** The `waitsFor` of every environment not reached (checked only when given). */
  waitsFor?: Record<string, string>;
  /** What the verification checks found (absent: none read). */
  verifications?: VerificationRecord[];
  /** What is served per `external-service` environment (absent: not read). */
  servedInputs?: ServedInput[];
  /** The `verificationEndsAt` of every environment that has one (checked only when given). */
  verificationEndsAt?: Record<string, string>;
  /** What the group's other members hold, by environment (absent: not read). */
  groups?: Record<string, GroupObservation>;
}

export function inputOf(row: Row): DecisionInput {
  return {
    pipeline: row.pipeline,
    observed: observedMap(row.pipeline, row.observed),
    approvals: row.approvals ?? [],
    promotions: row.promotions ?? [],
    ...(row.since ? { statusSince: observedMap(row.pipeline, row.since) } : {}),
    ...(row.freezes ? { freezes: row.freezes } : {}),
    ...(row.lastPassed ? { lastPassed: new Map(Object.entries(row.lastPassed)) } : {}),
    ...(row.verifications ? { verifications: row.verifications } : {}),
    ...(row.servedInputs ? { servedInputs: row.servedInputs } : {}),
    ...(row.groups ? { groups: new Map(Object.entries(row.groups)) } : {}),
    now: row.now ?? NOW,
  };
}

/** The actions without the promotions' evidence, which rows check apart (`Row.evidence`). */
export function withoutEvidence(actions: readonly Action[]): Action[] {
  return actions.map((action) => {
    if (action.type !== 'promote') return action;
    const { evidence: _evidence, ...rest } = action;
    return rest;
  });
}

/** The environments `env` comes after, directly or through others. */
function ancestorsOf(subject: Pipeline, env: string): Set<string> {
  const found = new Set<string>();
  const visit = (name: string): void => {
    for (const before of predecessorsOf(subject.environments, name)) {
      if (found.has(before)) continue;
      found.add(before);
      visit(before);
    }
  };
  visit(env);
  return found;
}

/** One test per row, plus the checks every decision must pass: pipeline order, one-line messages, no mutation. */
export function runRows(rows: readonly Row[]): void {
  for (const row of rows) {
    it(row.name, () => {
      const input = inputOf(row);
      const before = structuredClone(input);
      const decision = decide(input);

      assert.equal(decision.candidate, row.candidate, 'candidate');
      assert.deepEqual(withoutEvidence(decision.actions), row.actions, 'actions');
      for (const [env, evidence] of Object.entries(row.evidence ?? {})) {
        const action = decision.actions.find((a) => a.type === 'promote' && a.env === env);
        assert.deepEqual(action?.type === 'promote' ? action.evidence : undefined, evidence, `${env}: evidence`);
      }
      if (row.needs) assert.deepEqual(decision.needs ?? {}, row.needs, 'needs');
      if (row.frozenUntil) {
        const frozen = decision.environments.flatMap((e) => (e.frozenUntil ? [[e.env, e.frozenUntil]] : []));
        assert.deepEqual(Object.fromEntries(frozen), row.frozenUntil, 'frozenUntil');
      }
      if (row.rollbackAt) {
        const due = decision.environments.flatMap((e) => (e.rollbackAt ? [[e.env, e.rollbackAt]] : []));
        assert.deepEqual(Object.fromEntries(due), row.rollbackAt, 'rollbackAt');
      }
      assert.deepEqual(
        decision.environments.map((e) => e.env),
        row.pipeline.environments.map((e) => e.name),
        'one explanation per environment, in pipeline order',
      );
      assert.deepEqual(Object.fromEntries(decision.environments.map((e) => [e.env, e.state])), row.states, 'states');
      assert.deepEqual(Object.fromEntries(decision.environments.map((e) => [e.env, e.reason])), row.reasons, 'reasons');
      assert.deepEqual(
        Object.fromEntries(decision.environments.flatMap((e) => (e.soakEndsAt ? [[e.env, e.soakEndsAt]] : []))),
        row.soakEndsAt ?? {},
        'soakEndsAt',
      );
      for (const { env, state, waitsFor } of decision.environments) {
        if (state !== 'not-reached') {
          assert.equal(waitsFor, undefined, `${env}: only an environment not reached waits for another`);
          continue;
        }
        // What a person reads as "waits for staging": always an environment this one comes after.
        assert.ok(waitsFor !== undefined, `${env}: not reached, and names what it waits for`);
        assert.ok(ancestorsOf(row.pipeline, env).has(waitsFor), `${env}: waits for ${waitsFor}, one it comes after`);
      }
      if (row.verificationEndsAt) {
        const ends = decision.environments.flatMap((e) =>
          e.verificationEndsAt ? [[e.env, e.verificationEndsAt]] : [],
        );
        assert.deepEqual(Object.fromEntries(ends), row.verificationEndsAt, 'verificationEndsAt');
      }
      if (row.waitsFor) {
        const waiting = decision.environments.flatMap((e) => (e.waitsFor ? [[e.env, e.waitsFor]] : []));
        assert.deepEqual(Object.fromEntries(waiting), row.waitsFor, 'waitsFor');
      }
      for (const { env, message } of decision.environments) {
        assert.match(message, /^[^\r\n]+$/, `${env}: the message is one non-empty line`);
        for (const words of row.messages?.[env] ?? []) {
          assert.ok(message.includes(words), `${env}: expected "${words}" in "${message}"`);
        }
      }
      if (row.source) {
        assert.ok(decision.source, 'a pipeline with a source explains it');
        const { state, reason, version, message } = decision.source;
        assert.deepEqual(
          { state, reason, version },
          { state: row.source.state, reason: row.source.reason, version: row.source.version },
        );
        if (row.source.message)
          assert.ok(message.includes(row.source.message), `source: "${row.source.message}" in "${message}"`);
      } else {
        assert.equal(decision.source, undefined, 'no source explanation without a source');
      }
      assert.deepEqual(input, before, 'decide does not change its input');
      assert.deepEqual(decide(inputOf(row)), decision, 'the same input gives the same decision');
    });
  }
}
