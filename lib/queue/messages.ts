// The messages that travel through the queue (SQS in AWS, the embedded queue locally), their zod schemas and
// their wire format. A body is JSON: the message itself plus a schema version `v`. Every consumer validates what it
// receives, so a body that does not decode is a poison message: it is dead-lettered at once, never retried.
import { parseJsonObject } from '../util/json.js';
import { describeIssue, type DescribeIssueOptions } from '../util/zod-issue.js';
// zod/mini, not zod's classic API: the receiver encodes these messages, and the classic API would add about 65 KiB to
// the receiver's bundle and to what each of its cold starts compiles. One classic import anywhere in the
// receiver's import graph brings all of it back (test/infra/zod-mini.test.ts).
import * as z from 'zod/mini';
import { APP_KINDS, SOURCE_KINDS } from '../pipeline/model.js';
import type { AppKey, ObjectKey } from '../pipeline/model.js';

/** The version written into every body; a body with any other `v` is rejected. */
export const MESSAGE_SCHEMA_VERSION = 1;

/** Hints are only logged, so a longer one is cut to this many characters instead of being rejected. */
export const HINT_MAX_LENGTH = 1024;

const nonEmpty = z.string().check(z.minLength(1));

const hintText = z.pipe(
  z.string(),
  z.transform((text: string) => (text.length > HINT_MAX_LENGTH ? text.slice(0, HINT_MAX_LENGTH) : text)),
);

/** Every kind the verifier reads: the apps, and the pipelines' source objects. */
const WatchedKindSchema = z.enum([...APP_KINDS, ...SOURCE_KINDS]);

export const ObjectKeySchema = z.object({ namespace: nonEmpty, name: nonEmpty }) satisfies z.ZodMiniType<ObjectKey>;

export const AppKeySchema = z.object({
  cluster: ObjectKeySchema,
  kind: WatchedKindSchema,
  namespace: nonEmpty,
  name: nonEmpty,
}) satisfies z.ZodMiniType<AppKey>;

/**
 * Look at one app on one leaf cluster and decide for every pipeline it belongs to. `attempt` is 0 for the first
 * check; the verifier re-enqueues a target that has not settled yet with `attempt + 1` and a delay. `cause` is only
 * logged; no version has sent `poll`, which is still accepted so that such a body is not dead-lettered.
 */
export const CheckAppMessageSchema = z.object({
  type: z.literal('check-app'),
  app: AppKeySchema,
  cause: z.enum(['event', 'recheck', 'poll']),
  attempt: z.int().check(z.minimum(0)),
  /** From the triggering event; logged, never used for a decision (the cluster is read instead). */
  hint: z.optional(z.object({ revision: z.optional(hintText), reason: z.optional(hintText) })),
  /**
   * The pipelines the receiver's index lookup found the app in, so the verifier does not look again (each is still
   * checked against its stored definition). Absent from re-checks and from messages of older versions: looked up.
   */
  pipelines: z.optional(z.array(ObjectKeySchema).check(z.maxLength(1000))),
});

/**
 * Re-decide one pipeline (all environments, or the targets of `env`). With `readTargets` the verifier first reads
 * those targets from their clusters (after a webhook or an apply); without, it decides from the stored records
 * alone (a retry that came due, an expired lease, the poller's once-per-poll check, `pipelinectl unfreeze`, a change a
 * `poll` message recorded: `polled-change`, sent delayed, see lib/verifier/deferred-decisions.ts; the local mode's first
 * poll after a start: `resume`, which decides every pipeline, as the messages lost with the process are not
 * redelivered; the poller's `poll` decides only a pipeline time can change). `cause`
 * is logged and says whether the decision may start a re-check chain (lib/verifier/handlers/check-pipeline.ts); no
 * version has sent `approval`, which is still accepted so that such a body is not dead-lettered.
 */
export const CheckPipelineMessageSchema = z.object({
  type: z.literal('check-pipeline'),
  pipeline: ObjectKeySchema,
  env: z.optional(nonEmpty),
  cause: z.enum(['promotion-webhook', 'apply', 'approval', 'retry', 'poll', 'unfreeze', 'polled-change', 'resume']),
  /** Absent in a message from a version before it existed: see `readsTargets`. */
  readTargets: z.optional(z.boolean()),
  /**
   * `polled-change` only: every change the message was sent for was recorded before this time (the sender's clock),
   * so a decision of the pipeline that began later answers it (lib/verifier/deferred-decisions.ts). Absent in a
   * message from a version before it existed: such a message is always decided.
   */
  recordedBefore: z.optional(z.iso.datetime()),
});

/** Read every app of one kind on one cluster: the scheduled backstop for lost events. */
export const PollMessageSchema = z.object({
  type: z.literal('poll'),
  cluster: ObjectKeySchema,
  kind: WatchedKindSchema,
  /**
   * The cluster's registration (its stored GitopsCluster document) as the poller listed it, so that the verifier
   * does not read it once per poll message; absent when it is large, and in messages of older versions: read then.
   * Checked against the GitopsCluster schema by the verifier, which reads the store instead when it does not pass.
   */
  registration: z.optional(z.record(z.string(), z.unknown())),
  /**
   * The PipelineSets whose `apps` generators look at this (cluster, kind), as the poller listed them: the poll's LIST
   * finds their apps too (lib/verifier/pipeline-set-apps.ts). Absent when none does.
   */
  pipelineSets: z.optional(z.array(ObjectKeySchema)),
});

/**
 * Read every app of the kinds in use on a group of clusters: the scheduled backstop for lost events, one message per
 * group (lib/poller/poller.ts). A pair whose LIST is what its last full poll recorded costs nothing more
 * (docs/architecture.md, "The poll digest"); any other is polled as a `poll` message would.
 */
export const PollClustersMessageSchema = z.object({
  type: z.literal('poll-clusters'),
  clusters: z
    .array(
      z.object({
        cluster: ObjectKeySchema,
        /** As in `poll`: the registration the poller listed, absent when large. */
        registration: z.optional(z.record(z.string(), z.unknown())),
        kinds: z
          .array(z.object({ kind: WatchedKindSchema, pipelineSets: z.optional(z.array(ObjectKeySchema)) }))
          .check(z.minLength(1)),
      }),
    )
    .check(z.minLength(1)),
});

/** Carry out the promotion of `revision` to `env`, once it has been approved. */
export const PromoteMessageSchema = z.object({
  type: z.literal('promote'),
  pipeline: ObjectKeySchema,
  env: nonEmpty,
  revision: nonEmpty,
});

/**
 * Read a ConfigSource's branch head and, when that commit (for the source's current spec) was never attempted,
 * apply the configuration it holds (docs/config-sources.md). `cause` is only logged: a push webhook is a trigger,
 * nothing of its payload travels here.
 */
export const SyncConfigSourceMessageSchema = z.object({
  type: z.literal('sync-config-source'),
  source: ObjectKeySchema,
  cause: z.enum(['poll', 'webhook', 'apply', 'busy']),
});

export const QueueMessageSchema = z.discriminatedUnion('type', [
  CheckAppMessageSchema,
  CheckPipelineMessageSchema,
  PollMessageSchema,
  PollClustersMessageSchema,
  PromoteMessageSchema,
  SyncConfigSourceMessageSchema,
]);

export type CheckAppMessage = z.output<typeof CheckAppMessageSchema>;
export type CheckPipelineMessage = z.output<typeof CheckPipelineMessageSchema>;
export type PollMessage = z.output<typeof PollMessageSchema>;
export type PollClustersMessage = z.output<typeof PollClustersMessageSchema>;
export type PromoteMessage = z.output<typeof PromoteMessageSchema>;
export type SyncConfigSourceMessage = z.output<typeof SyncConfigSourceMessageSchema>;
export type QueueMessage = z.output<typeof QueueMessageSchema>;
export type QueueMessageType = QueueMessage['type'];

/**
 * Whether a check-pipeline message asks for its targets to be read first. A message sent before `readTargets`
 * existed (still in the queue during a deploy) says it through its cause, as that version's verifier read it.
 */
export function readsTargets(message: CheckPipelineMessage): boolean {
  return message.readTargets ?? (message.cause === 'promotion-webhook' || message.cause === 'apply');
}

export const QUEUE_MESSAGE_TYPES: readonly QueueMessageType[] = [
  'check-app',
  'check-pipeline',
  'poll',
  'poll-clusters',
  'promote',
  'sync-config-source',
];

/** How a message's problem is told: never its values, and a wrong `type` as one of the known types. */
const MESSAGE_ISSUES: DescribeIssueOptions = {
  whole: 'message',
  discriminator: { field: 'type', values: QUEUE_MESSAGE_TYPES },
};

export type DecodeResult = { ok: true; message: QueueMessage } | { ok: false; reason: string };

/** Thrown by `encodeMessage` for a message that would not decode; the message names the field, not its value. */
export class InvalidMessageError extends Error {
  override name = 'InvalidMessageError';
}

/**
 * The body to send: `{"v":1,"type":…,…}`. The message is validated first, so a producer can never enqueue a body
 * that its consumer would dead-letter; fields the schema does not know are dropped.
 */
export function encodeMessage(message: QueueMessage): string {
  const parsed = QueueMessageSchema.safeParse(message);
  if (!parsed.success)
    throw new InvalidMessageError(`cannot encode: ${describeIssue(parsed.error, message, MESSAGE_ISSUES)}`);
  return JSON.stringify({ v: MESSAGE_SCHEMA_VERSION, ...parsed.data });
}

/** Decode a body. Reasons are short and never repeat the body, which may come from anywhere. */
export function decodeMessage(body: string): DecodeResult {
  const object = parseJsonObject(body);
  if (!object.ok) {
    return {
      ok: false,
      reason: object.reason === 'not an object' ? 'not a message: expected a JSON object' : object.reason,
    };
  }
  const { v, ...rest } = object.value;
  if (v === undefined) return { ok: false, reason: 'not a message: schema version v is missing' };
  if (v !== MESSAGE_SCHEMA_VERSION) return { ok: false, reason: 'unsupported schema version' };
  const parsed = QueueMessageSchema.safeParse(rest);
  if (!parsed.success)
    return { ok: false, reason: `invalid message: ${describeIssue(parsed.error, rest, MESSAGE_ISSUES)}` };
  return { ok: true, message: parsed.data };
}
