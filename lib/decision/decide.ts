// The promotion decision (docs/architecture.md, "The decision"): a pure function of the pipeline, the observed
// target statuses, the approval markers and the promotion records. It returns what to do and, per environment, a
// state, a reason and a line for a person; the verifier carries the actions out and `pipelinectl explain` prints the
// explanations. It does no I/O and reads the time only from `input.now`.
//
// Compared with Weave's level-triggered controller (docs/weave-compatibility.md), it also stops at a target it
// cannot read, never downgrades an environment that is ahead, honours manual approval, and does not repeat a
// recorded promotion (see promotion-step.ts).
import { isNewerRevision, runsSourceRevision, sameRevision, sourceVersion } from '../flux/revision.js';
import { wasRead, type TargetStatus } from '../flux/target-status.js';
import { appKeyOf, appKeyString, objectKeyString } from '../pipeline/model.js';
import type { PipelineEnvironment, SourceObject } from '../pipeline/model.js';
import { selectorString } from '../pipeline/label-selector.js';
import { predecessorsOf, walkOrder } from '../pipeline/environment-graph.js';
import { environmentEvidence, sourceEvidence } from './evidence.js';
import { freezeOf } from './freeze.js';
import { promotionStep, type PromotionStep } from './promotion-step.js';
import { rollbackStep } from './rollback.js';
import { servedCurrentActions } from './served-input.js';
import { holdForReleaseTrains } from './release-train.js';
import { isRunning, isoSeconds, soakOf, timeLeft, type Soak } from './soak.js';
import { verificationStep, type VerificationRecord, type VerificationStep } from './verification.js';
import { oneLine, targetName, withDetail } from './text.js';
import type {
  Action,
  ApprovalMarker,
  Decision,
  DecisionInput,
  EnvironmentExplanation,
  EnvironmentReason,
  EnvironmentState,
  ObservedTarget,
  PromotionEvidence,
  SourceExplanation,
  SourceReason,
} from './types.js';

/** A target whose status we know: its object was read (it may be failing, progressing or suspended). */
interface KnownTarget {
  name: string;
  status: TargetStatus;
}

export function decide(input: DecisionInput): Decision {
  const [first, ...later] = input.pipeline.environments;
  if (!first) return { actions: [], environments: [] };
  const source = input.pipeline.source && sourceOf(input, input.pipeline.source);
  const walked = source?.version
    ? decideFromSource(input, first, later, source.revision ?? source.version, source, source.version)
    : decideFromFirstEnvironment(input, first, later);
  const decision = inListedOrder(
    input,
    withServedCurrent(input, holdForReleaseTrains(input, withRollbacks(input, walked))),
  );
  return source ? { ...decision, source } : decision;
}

/** Adds what an `external-service` environment serves until its first promotion (served-input.ts). */
function withServedCurrent(input: DecisionInput, decision: Decision): Decision {
  const { actions } = decision;
  const promoted = (env: string) => actions.some((action) => action.type === 'promote' && action.env === env);
  // What runs there, by the rule the first environment's candidate is found with: every target on it, healthy.
  const runningOf = (env: PipelineEnvironment) => candidateOf(observedTargets(input, env), env).candidate;
  const due = servedCurrentActions(input.pipeline, input.servedInputs, promoted, runningOf);
  return due.length === 0 ? decision : { ...decision, actions: [...actions, ...due] };
}

/** The explanations in the order the pipeline lists its environments, whatever order the graph walked them in. */
function inListedOrder(input: DecisionInput, decision: Decision): Decision {
  const position = new Map(input.pipeline.environments.map((env, index) => [env.name, index]));
  const environments = [...decision.environments].sort(
    (a, b) => (position.get(a.env) ?? 0) - (position.get(b.env) ?? 0),
  );
  return { ...decision, environments };
}

/** What a walk decided, with what it could not decide without reading more. */
interface Walked {
  candidate?: string;
  actions: Action[];
  environments: EnvironmentExplanation[];
  /** A promotion would start where the stop switches were not read. */
  needsFreezes?: boolean;
}

/**
 * Adds the rollbacks that are due (rollback.ts) to what the walk decided. An environment the walk promotes into
 * is rolled forward instead: the newer candidate replaces the revision that fails there.
 */
function withRollbacks(input: DecisionInput, walked: Walked): Decision {
  const actions = [...walked.actions];
  const environments = [...walked.environments];
  const needsHistory: string[] = [];
  for (const env of input.pipeline.environments) {
    if (!env.rollback) continue;
    if (actions.some((action) => action.type === 'promote' && action.env === env.name)) continue;
    const step = rollbackStep({
      env,
      targets: observedTargets(input, env),
      promotions: input.promotions,
      passed: input.lastPassed?.get(env.name),
      verification: input.verifications?.find((record) => record.env === env.name),
      now: input.now,
    });
    if (step.due === 'needs-history') needsHistory.push(env.name);
    if (step.due !== true) continue;
    const index = environments.findIndex((explained) => explained.env === env.name);
    const explained: EnvironmentExplanation = {
      ...explanation(env, step.state, step.reason, step.message),
      ...(step.rollbackAt === undefined ? {} : { rollbackAt: step.rollbackAt }),
    };
    if (index >= 0) environments[index] = explained;
    actions.push(...step.actions);
  }
  const needs = {
    ...(walked.needsFreezes ? { freezes: true as const } : {}),
    ...(needsHistory.length > 0 ? { lastPassed: needsHistory } : {}),
  };
  const decision: Decision = { actions, environments };
  if (walked.candidate !== undefined) decision.candidate = walked.candidate;
  return Object.keys(needs).length > 0 ? { ...decision, needs } : decision;
}

/** Without a source (or while it names no version): the first environment's revision is the candidate. */
function decideFromFirstEnvironment(
  input: DecisionInput,
  first: PipelineEnvironment,
  later: readonly PipelineEnvironment[],
): Walked {
  const targets = observedTargets(input, first);
  const found = candidateOf(targets, first);
  if (found.candidate === undefined) {
    const environments = [explanation(first, 'source', found.reason, found.message)];
    // Without a candidate we know too little to act on anything, not even to clear a stale approval marker.
    for (const env of later) {
      environments.push(notReached(env, 'NoCandidate', `not reached: ${first.name} has no candidate`, first.name));
    }
    return { actions: [], environments };
  }
  // Its verification, like its soak, holds back what is promoted from it, never the candidate it supplies.
  const verified = verificationStep(first, found.candidate, verificationOf(input, first, found.candidate), input.now);
  if (verified && !verified.passed) {
    const message = `not reached: ${found.candidate} comes here once ${first.name} is verified`;
    return {
      candidate: found.candidate,
      actions: verified.due ? [{ type: 'verify', env: first.name, revision: found.candidate }] : [],
      environments: [
        verifying(first, verified),
        ...later.map((env) => notReached(env, 'AwaitingVerification', message, first.name)),
      ],
    };
  }
  // The first environment supplies the candidate at once; its soak only holds back what is promoted from it.
  const soak = soakOf(first, sinceOf(targets), input.now);
  const held = soak && isRunning(soak, input.now) ? soak : undefined;
  const firstExplained = held
    ? soaking(first, held, input.now, found.message)
    : explanation(first, 'source', found.reason, soak ? `${found.message}; ${soakServed(first)}` : found.message);
  const from = environmentEvidence(
    first.name,
    targets,
    soak ? first.soak : undefined,
    verificationOf(input, first, found.candidate),
  );
  const handed = new Map([[first.name, { from, ...(held ? { held } : {}) }]]);
  const walked = walk(input, later, found.candidate, { handed });
  return { ...walked, candidate: found.candidate, environments: [firstExplained, ...walked.environments] };
}

/**
 * With a source that names a version: the first environment is promoted to it like any later one (record, approval,
 * never downgraded), and once every target of it runs the version and is healthy, its own revision is the
 * candidate for the rest, as without a source.
 */
function decideFromSource(
  input: DecisionInput,
  first: PipelineEnvironment,
  later: readonly PipelineEnvironment[],
  revision: string,
  source: SourceExplanation,
  version: string,
): Walked {
  const walked = walk(input, [first], version, {
    runs: (running) => runsSourceRevision(running, revision),
    root: { from: sourceEvidence(source.object) },
  });
  const [firstExplained] = walked.environments;
  if (!firstExplained || (firstExplained.state !== 'passed' && firstExplained.state !== 'soaking')) {
    const stop = `${first.name} (${firstExplained?.state ?? 'unknown'})`;
    const rest = later.map((env) => notReached(env, 'StoppedEarlier', `not reached: stopped at ${stop}`, first.name));
    return { ...walked, candidate: version, environments: [...walked.environments, ...rest] };
  }
  const found = candidateOf(observedTargets(input, first), first);
  if (found.candidate === undefined) {
    const message = `not reached: ${first.name} has no candidate: ${found.message}`;
    const rest = later.map((env) => notReached(env, 'NoCandidate', message, first.name));
    return { ...walked, candidate: version, environments: [...walked.environments, ...rest] };
  }
  const firstTargets = observedTargets(input, first);
  const from = environmentEvidence(first.name, firstTargets, first.soak, verificationOf(input, first, found.candidate));
  const held = walked.handed.get(first.name)?.held;
  const next = walk(input, later, found.candidate, {
    handed: new Map([[first.name, { from, ...(held ? { held } : {}) }]]),
  });
  return {
    candidate: found.candidate,
    actions: [...walked.actions, ...next.actions],
    environments: [...walked.environments, ...next.environments],
    ...(walked.needsFreezes || next.needsFreezes ? { needsFreezes: true } : {}),
  };
}

/**
 * What an environment hands on to the environments that follow it: where the walk stopped (here or before it), the
 * latest soak that runs here or before it, and the evidence a promotion from it carries.
 */
interface Handed {
  stop?: { at: string; why: string };
  held?: Soak;
  from: PromotionEvidence;
}

/**
 * Walks environments towards `candidate`, each after every environment it follows (lib/pipeline/environment-graph.ts;
 * by default the one listed before it): an environment behind the candidate is promoted once every environment it
 * follows has passed the candidate, and nothing beyond an environment that is not done is reached. Branches are
 * independent: one that stops, waits for a person or is frozen holds back only what follows it, so a fan-out may
 * promote several environments at once, and a fan-in waits for its slowest branch. `runs` says whether a target's
 * revision is the candidate (a source's version is matched more loosely: runsSourceRevision).
 *
 * A soak that runs (handed on from an earlier environment, or met on the way) holds back every promotion after its
 * environment: an environment behind the candidate waits for it (`AwaitingSoak`) instead of being promoted. It does
 * not stop the walk, so an environment that already runs the candidate is still shown as it stands.
 *
 * `handed` holds what the environments decided before this walk hand on; `root` is what the source hands to an
 * environment that follows nothing (the first, when it is promoted from a source).
 */
function walk(
  input: DecisionInput,
  envs: readonly PipelineEnvironment[],
  candidate: string,
  options: WalkOptions,
): Walked & { handed: Map<string, Handed> } {
  const runs = options.runs ?? sameRevision;
  const handed = new Map(options.handed);
  const environments: EnvironmentExplanation[] = [];
  const actions: Action[] = [];
  let needsFreezes = false;
  const walked = new Set(envs.map((env) => env.name));
  for (const env of walkOrder(input.pipeline.environments).filter((one) => walked.has(one.name))) {
    const upstream = upstreamOf(input, env, handed, options.root);
    const hand = (next: Omit<Handed, 'from'> & { from?: PromotionEvidence }) =>
      handed.set(env.name, { ...next, from: next.from ?? upstream.from });
    if (upstream.stop !== undefined) {
      const message = `not reached: stopped at ${upstream.stopped}`;
      environments.push(notReached(env, 'StoppedEarlier', message, upstream.stop.at));
      hand({ stop: upstream.stop });
      continue;
    }
    const { held } = upstream;
    const approval = approvalOf(input.approvals, env);
    const targets = observedTargets(input, env);
    const classified = classifyEnvironment(targets, candidate, env, runs);
    if (classified.state === 'behind' && held) {
      environments.push(awaitingSoak(env, held, candidate, input.now));
      hand({ stop: { at: env.name, why: `waiting for the soak of ${held.env}` } });
      continue;
    }
    if (classified.state === 'behind') {
      const record = input.promotions.find((r) => r.env === env.name && sameRevision(r.revision, candidate));
      const step = promotionStep({ pipeline: input.pipeline, env, candidate, approval, record, now: input.now });
      const freeze = startsPromotion(step) ? freezeOf(input.pipeline, env, input.freezes, input.now) : undefined;
      if (freeze?.frozen === true) {
        environments.push({
          ...explanation(env, 'frozen', freeze.reason, `${candidate} is not promoted here yet: ${freeze.message}`),
          ...(freeze.until === undefined ? {} : { frozenUntil: freeze.until }),
        });
        hand({ stop: { at: env.name, why: 'frozen' } });
        continue;
      }
      if (freeze?.frozen === 'unknown') needsFreezes = true;
      environments.push(explanation(env, step.state, step.reason, step.message));
      actions.push(
        ...step.actions.map((action) => (action.type === 'promote' ? { ...action, evidence: upstream.from } : action)),
      );
      hand({ stop: { at: env.name, why: step.state } });
      continue;
    }
    const verified =
      classified.state === 'passed'
        ? verificationStep(env, candidate, verificationOf(input, env, candidate), input.now)
        : undefined;
    if (verified && !verified.passed) {
      environments.push(verifying(env, verified));
      if (verified.due) actions.push({ type: 'verify', env: env.name, revision: candidate });
      hand({ stop: { at: env.name, why: verified.state === 'failed' ? 'verification failed' : 'verifying' } });
      continue;
    }
    const soak = classified.state === 'passed' ? soakOf(env, sinceOf(targets), input.now) : undefined;
    let holds = held;
    if (soak && isRunning(soak, input.now)) {
      environments.push(soaking(env, soak, input.now, classified.message));
      holds = held && held.endsAt >= soak.endsAt ? held : soak;
    } else if (soak) {
      environments.push(explanation(env, 'passed', 'SoakServed', `${classified.message}; ${soakServed(env)}`));
    } else if (verified) {
      environments.push(explanation(env, 'passed', 'VerificationPassed', `${classified.message}; ${verified.message}`));
    } else {
      environments.push(explanation(env, classified.state, classified.reason, classified.message));
    }
    // What we cannot see, or cannot move, keeps its approval request: it may still be what the person wants.
    const keep = classified.state === 'unknown' || classified.state === 'suspended';
    const clear = keep ? undefined : staleApproval(env, approval, candidate);
    if (clear) actions.push(clear);
    if (classified.state === 'passed') {
      const from = environmentEvidence(env.name, targets, env.soak, verificationOf(input, env, candidate));
      hand({ from, ...(holds ? { held: holds } : {}) });
    } else {
      hand({ stop: { at: env.name, why: classified.state } });
    }
  }
  return { actions, environments, handed, ...(needsFreezes ? { needsFreezes } : {}) };
}

interface WalkOptions {
  /** Whether a target's revision is the candidate; default sameRevision. */
  runs?: RunsRevision;
  /** What the environments decided before the walk hand on, by name. */
  handed?: ReadonlyMap<string, Handed>;
  /** What an environment that follows nothing starts from: the source, for the first environment. */
  root?: Handed;
}

/**
 * What the environments `env` follows hand on to it, together: stopped if any of them stopped (naming each that
 * did), the soak that ends last, and the evidence of each (the first it follows, the others as `also`).
 */
function upstreamOf(
  input: DecisionInput,
  env: PipelineEnvironment,
  handed: ReadonlyMap<string, Handed>,
  root: Handed | undefined,
): Handed & { stopped?: string } {
  const names = predecessorsOf(input.pipeline.environments, env.name);
  const upstream = names.length === 0 ? [root] : names.map((name) => handed.get(name));
  const known = upstream.filter((one): one is Handed => one !== undefined);
  const [first] = known;
  if (first === undefined || known.length < upstream.length) {
    // Not reachable with a valid graph: an environment is walked only after every environment it follows.
    const at = names[0] ?? env.name;
    return { stop: { at, why: 'not decided' }, stopped: `${at} (not decided)`, from: sourceEvidence(at) };
  }
  const stops = known.flatMap((one) => (one.stop ? [one.stop] : []));
  const [stop] = stops;
  const held = known.reduce<Soak | undefined>(
    (latest, one) => (one.held && (!latest || one.held.endsAt > latest.endsAt) ? one.held : latest),
    undefined,
  );
  const also = known.slice(1).map((one) => one.from);
  const from = also.length > 0 ? { ...first.from, also } : first.from;
  return {
    from,
    ...(held ? { held } : {}),
    ...(stop ? { stop, stopped: [...new Set(stops.map(({ at, why }) => `${at} (${why})`))].join(', ') } : {}),
  };
}

/**
 * Whether the step starts a promotion (a freeze holds those): one due, approved, or retried. Resuming an attempt
 * whose worker vanished is not a start: a promotion under way finishes.
 */
function startsPromotion(step: PromotionStep): boolean {
  return step.reason === 'PromotionDue' || step.reason === 'Approved' || step.reason === 'RetryDue';
}

/** The candidate's verification record for `env`, if its checks were evaluated. */
function verificationOf(
  input: DecisionInput,
  env: PipelineEnvironment,
  candidate: string,
): VerificationRecord | undefined {
  return input.verifications?.find((record) => record.env === env.name && sameRevision(record.revision, candidate));
}

/** An environment whose targets all run the candidate, while its verification has not passed. */
function verifying(
  env: PipelineEnvironment,
  step: Exclude<VerificationStep, { passed: true }>,
): EnvironmentExplanation {
  const explained = explanation(env, step.state, step.reason, step.message);
  return step.verificationEndsAt === undefined
    ? explained
    : { ...explained, verificationEndsAt: step.verificationEndsAt };
}

/** An environment healthy on the candidate whose soak runs: nothing after it is promoted until `soakEndsAt`. */
function soaking(env: PipelineEnvironment, soak: Soak, now: Date, healthy: string): EnvironmentExplanation {
  return {
    ...explanation(env, 'soaking', 'SoakRunning', `${healthy}; soaking ${env.soak}: ${timeLeft(soak, now)}`),
    soakEndsAt: isoSeconds(soak.endsAt),
  };
}

/** The environment the candidate would be promoted to, while an earlier environment's soak runs. */
function awaitingSoak(env: PipelineEnvironment, soak: Soak, candidate: string, now: Date): EnvironmentExplanation {
  const message = `not reached: ${candidate} comes here once the soak of ${soak.env} is served (${timeLeft(soak, now)})`;
  return { ...notReached(env, 'AwaitingSoak', message, soak.env), soakEndsAt: isoSeconds(soak.endsAt) };
}

function soakServed(env: PipelineEnvironment): string {
  return `healthy for its whole ${env.soak} soak`;
}

function sinceOf(targets: readonly ObservedTarget[]): (string | undefined)[] {
  return targets.map((target) => target.since);
}

/** Whether a target reporting `running` runs `revision`. */
type RunsRevision = (running: string, revision: string) => boolean;

/**
 * What the pipeline's source names now. A version is taken only from a source that was read, is not suspended, and
 * is Ready on it: a source still resolving could name a version it is about to replace.
 */
function sourceOf(input: DecisionInput, source: SourceObject): SourceExplanation {
  const object = `${source.kind} ${source.namespace}/${source.name} on ${objectKeyString(source.cluster)}`;
  const status = input.observed.get(appKeyString(source));
  const unavailable = (reason: SourceReason, message: string): SourceExplanation => ({
    object,
    state: 'unavailable',
    reason,
    message: oneLine(message),
  });
  if (!status) return unavailable('SourceUnknown', `${object} was never read`);
  if (!wasRead(status)) return unavailable('SourceUnknown', withDetail(`cannot read ${object}`, status.message));
  if (status.phase === 'Suspended') {
    return unavailable('SourceSuspended', `${object} is suspended: no new version is taken from it`);
  }
  if (status.phase !== 'Ready' || status.revision === undefined) {
    return unavailable('SourceNotReady', withDetail(`${object} names no version yet`, status.message));
  }
  return {
    object,
    state: 'found',
    reason: 'VersionFound',
    message: `${object} names ${status.revision}`,
    revision: status.revision,
    version: sourceVersion(status.revision),
  };
}

/**
 * The first environment's revision, when every target of it runs that revision and is healthy; otherwise why not.
 * A candidate must stand for the whole environment, so one target we cannot read, one still reconciling or one on
 * another revision is enough to have none (as in Weave, plus read errors, which Weave ignored: docs/weave-compatibility.md).
 */
function candidateOf(targets: readonly ObservedTarget[], env: PipelineEnvironment): Explained & { candidate?: string } {
  const { known, unknown } = readTargets(targets);
  if (unknown) return { reason: 'TargetsUnknown', message: unknown };
  const [first] = known;
  if (!first) return { reason: 'NoTargets', message: `${noTargets(env)}: no candidate` };
  const suspended = suspendedTargets(known);
  if (suspended) return { reason: 'TargetSuspended', message: `${suspended}: no candidate` };

  const revision = first.status.revision;
  const revisionless = known.filter((t) => t.status.revision === undefined);
  if (revision === undefined || revisionless.length > 0) {
    return { reason: 'NoRevision', message: revisionless.map((t) => `target ${problemOf(t, '')}`).join('; ') };
  }
  if (known.some((t) => !runsRevision(t.status, revision))) {
    const runs = known.map((t) => `${t.name} runs ${t.status.revision}`).join(', ');
    return { reason: 'RevisionsDiffer', message: `waiting for all targets to run the same revision: ${runs}` };
  }
  const unready = known.filter((t) => !healthyOn(t.status, revision));
  if (unready.length > 0) {
    return { reason: 'TargetsNotReady', message: unready.map((t) => `target ${problemOf(t, revision)}`).join('; ') };
  }
  return {
    candidate: revision,
    reason: 'CandidateFound',
    message: `candidate ${revision}: all targets run it and are healthy`,
  };
}

/** A reason with its line for a person. */
interface Explained {
  reason: EnvironmentReason;
  message: string;
}

type Classification =
  | (Explained & { state: Extract<EnvironmentState, 'unknown' | 'suspended' | 'passed' | 'in-progress' | 'ahead'> })
  /** Neither on the candidate nor ahead of it: the environment the candidate is promoted to. */
  | { state: 'behind' };

/**
 * Where a later environment stands with respect to the candidate. The order of the checks is the rule: what we
 * cannot see stops everything; a rollout of the candidate (or a target that regressed after it passed) is waited
 * for; an environment that already runs something newer is neither downgraded nor promoted past.
 */
function classifyEnvironment(
  targets: readonly ObservedTarget[],
  candidate: string,
  env: PipelineEnvironment,
  runs: RunsRevision,
): Classification {
  const { known, unknown } = readTargets(targets);
  if (unknown) return { state: 'unknown', reason: 'TargetsUnknown', message: unknown };
  // An environment without targets cannot show that it runs the candidate; do not promote past it.
  if (known.length === 0) return { state: 'unknown', reason: 'NoTargets', message: noTargets(env) };
  // Flux would not roll a promotion out on a suspended target, nor can it be shown to pass: wait for a person.
  const suspended = suspendedTargets(known);
  if (suspended) return { state: 'suspended', reason: 'TargetSuspended', message: suspended };
  const healthy = (status: TargetStatus) => healthyOn(status, candidate, runs);
  if (known.every((t) => healthy(t.status))) {
    return { state: 'passed', reason: 'AllTargetsReady', message: `all targets run ${candidate} and are healthy` };
  }
  if (known.some((t) => runsRevision(t.status, candidate, runs))) {
    const pending = known.filter((t) => !healthy(t.status)).map((t) => problemOf(t, candidate, runs));
    return {
      state: 'in-progress',
      reason: 'RollingOut',
      message: `waiting for all targets to run ${candidate} and be healthy: ${pending.join('; ')}`,
    };
  }
  const ahead = known.find((t) => t.status.revision !== undefined && isNewerRevision(t.status.revision, candidate));
  if (ahead) {
    return {
      state: 'ahead',
      reason: 'AheadOfCandidate',
      message: `${ahead.name} runs ${ahead.status.revision}, newer than candidate ${candidate}: not downgrading`,
    };
  }
  return { state: 'behind' };
}

/**
 * Splits the targets into those whose status we know and, if there are any others, why we do not know theirs
 * (never observed, absent, or the last read failed): a single unknown target is enough to take no decision on them.
 */
function readTargets(targets: readonly ObservedTarget[]): { known: KnownTarget[]; unknown?: string } {
  const known: KnownTarget[] = [];
  const reasons: string[] = [];
  for (const { name, status } of targets) {
    if (!status) reasons.push(`target ${name} was never observed`);
    else if (!wasRead(status)) reasons.push(withDetail(`cannot read target ${name}`, status.message));
    else known.push({ name, status });
  }
  return reasons.length > 0 ? { known, unknown: reasons.join('; ') } : { known };
}

/** `target X is suspended: …; target Y is suspended: …`, or undefined when no target is suspended. */
function suspendedTargets(known: readonly KnownTarget[]): string | undefined {
  const suspended = known.filter((t) => t.status.phase === 'Suspended');
  if (suspended.length === 0) return undefined;
  return suspended.map((t) => withDetail(`target ${t.name} is suspended`, t.status.message)).join('; ');
}

/** What keeps a known target from being healthy on `revision`, worded after the target's name. */
function problemOf({ name, status }: KnownTarget, revision: string, runs: RunsRevision = sameRevision): string {
  if (status.revision === undefined) return withDetail(`${name} runs no revision yet`, status.message);
  if (!runs(status.revision, revision)) return `${name} runs ${status.revision}`;
  if (status.phase === 'Progressing') return withDetail(`${name} has not settled yet`, status.message);
  return withDetail(`${name} is not healthy`, status.message);
}

/** Runs `revision` and is Ready: Flux is done with the current spec and it is healthy. */
function healthyOn(status: TargetStatus, revision: string, runs: RunsRevision = sameRevision): boolean {
  return status.phase === 'Ready' && runsRevision(status, revision, runs);
}

function runsRevision(status: TargetStatus, revision: string, runs: RunsRevision = sameRevision): boolean {
  return status.revision !== undefined && runs(status.revision, revision);
}

/** The environment's targets, each with its observed status, in the order the Pipeline lists them. */
function observedTargets(input: DecisionInput, env: PipelineEnvironment): ObservedTarget[] {
  const { pipeline, observed } = input;
  return env.targets.map((target) => {
    const key = appKeyString(appKeyOf(pipeline, target));
    const since = input.statusSince?.get(key);
    const status = observed.get(key);
    return since === undefined ? { name: targetName(target), status } : { name: targetName(target), status, since };
  });
}

function approvalOf(approvals: readonly ApprovalMarker[], env: PipelineEnvironment): ApprovalMarker | undefined {
  return approvals.find((a) => a.env === env.name);
}

/**
 * A marker left on an environment that moved on (passed, rolling out, or ahead) for a revision other than the
 * candidate waits for nothing any more: an approval of it would promote a revision that is no longer wanted.
 */
function staleApproval(
  env: PipelineEnvironment,
  marker: ApprovalMarker | undefined,
  candidate: string,
): Action | undefined {
  if (!marker || sameRevision(marker.revision, candidate)) return undefined;
  return { type: 'clear-approval', env: env.name, revision: marker.revision };
}

function explanation(
  env: PipelineEnvironment,
  state: EnvironmentState,
  reason: EnvironmentReason,
  message: string,
): EnvironmentExplanation {
  return { env: env.name, state, reason, message: oneLine(message) };
}

/** An environment the walk did not reach, naming the environment it waits for. */
function notReached(
  env: PipelineEnvironment,
  reason: EnvironmentReason,
  message: string,
  waitsFor: string,
): EnvironmentExplanation {
  return { ...explanation(env, 'not-reached', reason, message), waitsFor };
}

/** Why an environment has no targets: a selector that matches no cluster is named, so a person can fix the labels. */
function noTargets(env: PipelineEnvironment): string {
  if (!env.targetSelector) return 'environment has no targets';
  return (
    `environment has no targets: its targetSelector (${selectorString(env.targetSelector.clusterSelector)}) ` +
    'selects no GitopsCluster'
  );
}
