// The decisions a poll found a reason for (a target of the pipeline changed), made a few seconds later by one delayed
// `check-pipeline` per pipeline instead of by every poll message (docs/architecture.md, "Deciding after a poll").
// A poll is one message per (cluster, kind): after an apply every status is new, so each of the 200 messages of a
// pipeline spanning 200 clusters would decide it again, each decision reading all its targets.
//
// Why a message may leave its decision to one already sent: that message becomes visible no earlier than `decideAt`
// (the queue delays it from when it accepted it, after this container read its clock), and it decides from what the
// store holds then. A poll message that finished recording before `decideAt` (less a margin) is therefore seen by
// it; one that finishes later sends a message of its own. Nothing is shared between containers: each sends its own.
//
// Why a received message may go undecided: it carries `recordedBefore`, the time before which everything it was sent
// for was recorded. A decision of the same pipeline, for the same cause, that began reading the store later saw all
// of it, so deciding again would read every target's status once more to find what that decision found. A poll of
// many batches otherwise decides each pipeline once per batch (the first poll after an apply of 50,000 targets: 200
// decisions of 1,000 status reads each instead of at most 100). Only a decision that finished counts: one that failed is
// redelivered and decides again.
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { CheckPipelineMessage } from '../queue/messages.js';
import type { Queue } from '../queue/port.js';

/**
 * How much earlier than the shared message's due time a poll message must have recorded to rely on it. Both times are
 * read from this container's clock and the queue counts the delay itself, so this only covers a clock adjustment.
 */
const MARGIN_MS = 200;

/**
 * How much later than a message's `recordedBefore` a decision must have begun to answer it. The message may come from
 * another container, whose clock may differ from this one's by a little (Lambda's hosts keep theirs synchronised).
 */
const CLOCK_SKEW_MS = 1000;

interface Pending {
  /** Milliseconds since the epoch: the earliest time the message can be received. */
  decideAt: number;
  /** The send of the message: a poll message that relies on it succeeds only if the send did. */
  sent: Promise<void>;
}

export class DeferredDecisions {
  readonly #pending = new Map<string, Pending>();
  /** Per pipeline, when the latest finished `polled-change` decision in this container began (ms since the epoch). */
  readonly #decidedFrom = new Map<string, number>();

  constructor(
    private readonly queue: Pick<Queue, 'sendBatch'>,
    /** 0: the poll message decides itself (`pollDecisionDelaySeconds`). */
    readonly delaySeconds: number,
    private readonly now: () => Date,
  ) {}

  /**
   * Sees to it that each pipeline is decided, from what the store holds now or later, about `delaySeconds` from now:
   * by a delayed `check-pipeline` already sent when it is due late enough, else by one sent now (one batch for all).
   */
  async decideSoon(pipelines: readonly ObjectKey[]): Promise<void> {
    const now = this.now().getTime();
    for (const [id, pending] of this.#pending) if (pending.decideAt <= now) this.#pending.delete(id);
    const waits: Promise<void>[] = [];
    const unsent: ObjectKey[] = [];
    for (const pipeline of pipelines) {
      const pending = this.#pending.get(objectKeyString(pipeline));
      if (pending && pending.decideAt - MARGIN_MS > now) waits.push(pending.sent);
      else unsent.push(pipeline);
    }
    if (unsent.length > 0) {
      const decideAt = now + this.delaySeconds * 1000;
      // What relies on the message recorded before its due time less the margin: that is what it was sent for.
      const recordedBefore = new Date(decideAt - MARGIN_MS).toISOString();
      const sent = this.queue.sendBatch(
        unsent.map((pipeline) => ({
          message: {
            type: 'check-pipeline' as const,
            pipeline,
            cause: 'polled-change' as const,
            readTargets: false,
            recordedBefore,
          },
          delaySeconds: this.delaySeconds,
        })),
      );
      const pending: Pending = { decideAt, sent };
      for (const pipeline of unsent) this.#pending.set(objectKeyString(pipeline), pending);
      // A send that failed is relied on by no later message.
      sent.catch(() => {
        for (const pipeline of unsent) {
          const id = objectKeyString(pipeline);
          if (this.#pending.get(id) === pending) this.#pending.delete(id);
        }
      });
      waits.push(sent);
    }
    await Promise.all(waits);
  }

  /** Whether a `polled-change` decision that finished in this container began late enough to have seen `message`'s changes. */
  answered(message: CheckPipelineMessage): boolean {
    if (message.cause !== 'polled-change' || message.recordedBefore === undefined) return false;
    const decidedFrom = this.#decidedFrom.get(objectKeyString(message.pipeline));
    return decidedFrom !== undefined && decidedFrom >= Date.parse(message.recordedBefore) + CLOCK_SKEW_MS;
  }

  /**
   * Notes the decision `message` asked for, begun reading the store at `startedAt` and finished: one of a
   * `polled-change` message answers later ones; any other cause answers none.
   */
  decided(message: CheckPipelineMessage, startedAt: Date): void {
    if (message.cause !== 'polled-change') return;
    const id = objectKeyString(message.pipeline);
    this.#decidedFrom.set(id, Math.max(this.#decidedFrom.get(id) ?? 0, startedAt.getTime()));
  }
}
