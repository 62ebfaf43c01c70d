// A target status as a status item holds it. Items written before targets had phases hold the old shape (two
// booleans, prose and an optional error); they are decoded into a phase here, on read, so an upgrade needs no
// migration: the next read of the target from its cluster replaces the item (its fingerprint differs).
// zod/mini, not zod's classic API, as in every module of the store: the classic API costs a cold start about 65 KiB
// more to compile, and the receiver's bundle holds the store modules its routes call (`createReceiverStore`), where
// one classic import would bring all of it back (test/infra/zod-mini.test.ts).
import * as z from 'zod/mini';
import { TARGET_PHASES, type TargetReason, type TargetStatus } from '../../flux/target-status.js';

const Current = z.object({
  phase: z.enum(TARGET_PHASES),
  // A reason this version does not know (written by a newer one) still reads, as its phase says enough.
  reason: z.string(),
  message: z.string(),
  revision: z.optional(z.string()),
  failedRevision: z.optional(z.string()),
});

const Legacy = z.object({
  healthy: z.boolean(),
  settled: z.boolean(),
  reason: z.string(),
  error: z.optional(z.string()),
  revision: z.optional(z.string()),
});

/** The status an item holds, in the current shape; a value that is neither shape reads as Unreadable. */
export function decodeTargetStatus(value: unknown): TargetStatus {
  const current = Current.safeParse(value);
  if (current.success) {
    const status = withRevision(current.data, current.data.reason as TargetReason);
    const { failedRevision } = current.data;
    return failedRevision === undefined ? status : { ...status, failedRevision };
  }
  const legacy = Legacy.safeParse(value);
  if (!legacy.success) {
    return { phase: 'Unreadable', reason: 'Unclassified', message: 'the stored status could not be read' };
  }
  const { healthy, settled, reason, error, revision } = legacy.data;
  const phase = error !== undefined ? 'Unreadable' : healthy ? 'Ready' : settled ? 'Failed' : 'Progressing';
  return withRevision({ phase, message: error ?? reason, revision }, 'Unclassified');
}

function withRevision(
  status: Pick<TargetStatus, 'phase' | 'message' | 'revision'>,
  reason: TargetReason,
): TargetStatus {
  const { phase, message, revision } = status;
  return revision === undefined ? { phase, reason, message } : { phase, reason, message, revision };
}
