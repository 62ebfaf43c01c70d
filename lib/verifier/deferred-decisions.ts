// The decisions a poll found a reason for (a target of the pipeline changed), made a few seconds later by one delayed
// `check-pipeline` per pipeline instead of by every poll message (docs/architecture.md, "Deciding after a poll").
// A poll is one message per (cluster, kind): after an apply every status is new, so each of the 200 messages of a
// pipeline spanning 200 clusters would decide it again, each decision reading all its targets.
//
// Why a message may leave its decision to one already sent: that message becomes visible no earlier than `decideAt`
// (the queue delays it from when it accepted it, after this container read its clock), and it decides from what the
// store holds then. A poll message that finished recording before `decideAt` (less a margin) is therefore seen by
// it; one that finishes later sends a message of its own. Nothing is shared between containers: each sends its own.
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Queue } from '../queue/port.js';

/**
 * How much earlier than the shared message's due time a poll message must have recorded to rely on it. Both times are
 * read from this container's clock and the queue counts the delay itself, so this only covers a clock adjustment.
 */
const MARGIN_MS = 200;

interface Pending {
  /** Milliseconds since the epoch: the earliest time the message can be received. */
  decideAt: number;
  /** The send of the message: a poll message that relies on it succeeds only if the send did. */
  sent: Promise<void>;
}

export class DeferredDecisions {
  readonly #pending = new Map<string, Pending>();

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
      const sent = this.queue.sendBatch(
        unsent.map((pipeline) => ({
          message: { type: 'check-pipeline' as const, pipeline, cause: 'polled-change' as const, readTargets: false },
          delaySeconds: this.delaySeconds,
        })),
      );
      const pending: Pending = { decideAt: now + this.delaySeconds * 1000, sent };
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
}
