// The verifier's own re-check for when a soak is served (docs/architecture.md, "Soak"), so that the promotion it
// holds back follows at once instead of at the next poll. SQS delays a message by 15 minutes at most, so a longer
// soak is waited out by a chain of delayed `check-pipeline` messages, each re-deciding and sending the next.
//
// Every evaluation during a soak would otherwise add a chain of its own (every event, every poll), so a chain is
// started only by an evaluation that may have moved the soak's end (a recorded status change, an apply) and is
// continued only by a delayed re-decision; a redundant event, a poll that changed nothing or an approval sends
// nothing. Lost links (a restart of the local mode) cost at most a poll interval: the poll's check of every pipeline
// re-decides and promotes once the soak is served.
import type { Decision } from '../../decision/index.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import { MAX_DELAY_SECONDS } from '../../queue/port.js';
import type { VerifierDeps } from '../deps.js';

/** What led to an evaluation, as far as the soak re-check is concerned. */
export type EvaluationCause =
  /** It recorded a change of one of the pipeline's targets: a soak may have started or restarted. */
  | 'status-changed'
  /** The pipeline was (re)applied: its soak may be new, or of another length. */
  | 'applied'
  /** A delayed re-decision came due: a link of a soak re-check chain (or a promotion retry). */
  | 'delayed-check'
  /** Anything else: a redundant event, the poll's check of the pipeline, an approval. Starts no chain. */
  | 'nothing-changed';

/** Seconds added to a link's delay, so that it does not arrive just before the soak's end and find it running. */
const SLACK_SECONDS = 1;

export interface SoakCheck {
  /** The environment that waits for the soak (`AwaitingSoak`). */
  env: string;
  /** ISO 8601: when the soak is served. */
  soakEndsAt: string;
  /** The delay of the next link: until the soak's end and a second, or the queue's limit when that is sooner. */
  delaySeconds: number;
}

/**
 * The re-check a decision calls for: one when a running soak holds back a promotion (an environment is
 * `AwaitingSoak`), none for a soak that holds nothing back (the last environment's, or one whose next environment
 * already runs the candidate): its end changes nothing the verifier would do.
 */
export function soakCheckOf(decision: Decision, now: Date): SoakCheck | undefined {
  const awaiting = decision.environments.find((env) => env.reason === 'AwaitingSoak' && env.soakEndsAt);
  if (!awaiting?.soakEndsAt) return undefined;
  const endsAt = Date.parse(awaiting.soakEndsAt);
  if (Number.isNaN(endsAt)) return undefined;
  const leftSeconds = Math.max(0, Math.ceil((endsAt - now.getTime()) / 1000));
  return {
    env: awaiting.env,
    soakEndsAt: awaiting.soakEndsAt,
    delaySeconds: Math.min(leftSeconds + SLACK_SECONDS, MAX_DELAY_SECONDS),
  };
}

/** Sends the next link of the soak re-check chain when the decision calls for one and `cause` may start or continue it. */
export async function scheduleSoakCheck(
  pipeline: ObjectKey,
  decision: Decision,
  cause: EvaluationCause,
  deps: Pick<VerifierDeps, 'queue' | 'logger' | 'now'>,
): Promise<SoakCheck | undefined> {
  if (cause === 'nothing-changed') return undefined;
  const check = soakCheckOf(decision, deps.now());
  if (!check) return undefined;
  await deps.queue.send(
    // `retry` is the cause of a delayed re-decision from the stored records: the verifier treats it as a link.
    { type: 'check-pipeline', pipeline, cause: 'retry', readTargets: false },
    { delaySeconds: check.delaySeconds },
  );
  deps.logger.info('soak re-check scheduled', { pipeline: objectKeyString(pipeline), cause, ...check });
  return check;
}
