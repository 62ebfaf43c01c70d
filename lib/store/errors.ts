// Errors of the Store port that callers act on, whichever adapter throws them.

/**
 * A definition (pipeline or cluster) was written by someone else between this apply's read and its write: the
 * write is refused rather than lost, and applying again reads the new generation.
 */
export class ConcurrentChangeError extends Error {
  constructor(what: string) {
    super(`${what} was changed by someone else at the same time; apply again`);
    this.name = 'ConcurrentChangeError';
  }
}
