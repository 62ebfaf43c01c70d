// The verifier's own re-check for when something the decision waits on in time comes due (docs/architecture.md,
// "Re-checks"): a soak is served, a freeze ends, a rollback's grace period is over. What it holds back then follows
// at once instead of at the next poll. SQS delays a message by 15 minutes at most, so a longer wait is a chain of
// delayed `check-pipeline` messages, each re-deciding and sending the next.
//
// Every evaluation during a wait would otherwise add a chain of its own (every event, every poll), so a chain is
// started only by an evaluation that may have moved the soak's end (a recorded status change, an apply) and is
// continued only by a delayed re-decision; a redundant event, a poll that changed nothing or an approval sends
// nothing. Lost links (a restart of the local mode) cost at most a poll interval: the poll's check of every pipeline
// re-decides and promotes once the soak is served.
import type { Decision } from '../../decision/index.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { MAX_DELAY_SECONDS } from '../../queue/port.js';
import type { VerifierDeps } from '../deps.js';

/** What led to an evaluation, as far as the re-check is concerned. */
export type EvaluationCause =
  /** It recorded a change of one of the pipeline's targets: a soak or a grace period may have started or restarted. */
  | 'status-changed'
  /** The pipeline was (re)applied: its soak, freeze windows or grace period may be new. */
  | 'applied'
  /** A delayed re-decision came due: a link of a re-check chain (or a promotion retry). */
  | 'delayed-check'
  /** Anything else: a redundant event, the poll's check of the pipeline, an approval. Starts no chain. */
  | 'nothing-changed';

/** Seconds added to a link's delay, so that it does not arrive just before the wait's end and find it running. */
const SLACK_SECONDS = 1;

/** What a re-check waits for. */
export type RecheckReason =
  /** An environment waits for the soak of an earlier one (`AwaitingSoak`). */
  | 'soak'
  /** A promotion is held by a freeze that ends by itself (`frozenUntil`). */
  | 'freeze'
  /** A rollback waits out its grace period (`rollbackAt`). */
  | 'rollback-grace';

export interface Recheck {
  reason: RecheckReason;
  /** The environment that waits. */
  env: string;
  /** ISO 8601: when the wait is over. */
  at: string;
  /** The delay of the next link: until the wait's end and a second, or the queue's limit when that is sooner. */
  delaySeconds: number;
}

/**
 * The re-check a decision calls for: at the earliest of the waits that hold back something the verifier would do.
 * A soak that holds nothing back (the last environment's, or one whose next environment already runs the
 * candidate) calls for none: its end changes nothing. Neither does a freeze that only a person ends.
 */
export function recheckOf(decision: Decision, now: Date): Recheck | undefined {
  const waits = decision.environments.flatMap((env): { reason: RecheckReason; env: string; at: string }[] => {
    if (env.reason === 'AwaitingSoak' && env.soakEndsAt) return [{ reason: 'soak', env: env.env, at: env.soakEndsAt }];
    if (env.state === 'frozen' && env.frozenUntil) return [{ reason: 'freeze', env: env.env, at: env.frozenUntil }];
    if (env.reason === 'RollbackGracePeriod' && env.rollbackAt) {
      return [{ reason: 'rollback-grace', env: env.env, at: env.rollbackAt }];
    }
    return [];
  });
  const readable = waits.filter((wait) => !Number.isNaN(Date.parse(wait.at)));
  const first = readable.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))[0];
  if (!first) return undefined;
  const leftSeconds = Math.max(0, Math.ceil((Date.parse(first.at) - now.getTime()) / 1000));
  return { ...first, delaySeconds: Math.min(leftSeconds + SLACK_SECONDS, MAX_DELAY_SECONDS) };
}

/** Sends the next link of the re-check chain when the decision calls for one and `cause` may start or continue it. */
export async function scheduleRecheck(
  pipeline: ObjectKey,
  decision: Decision,
  cause: EvaluationCause,
  deps: Pick<VerifierDeps, 'queue' | 'logger' | 'now'>,
): Promise<Recheck | undefined> {
  if (cause === 'nothing-changed') return undefined;
  const check = recheckOf(decision, deps.now());
  if (!check) return undefined;
  await deps.queue.send(
    // `retry` is the cause of a delayed re-decision from the stored records: the verifier treats it as a link.
    { type: 'check-pipeline', pipeline, cause: 'retry', readTargets: false },
    { delaySeconds: check.delaySeconds },
  );
  deps.logger.info('re-check scheduled', { pipeline: objectKeyString(pipeline), cause, ...check });
  return check;
}
