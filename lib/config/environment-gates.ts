// zod schemas for the gates an environment may set on promotions into it (extensions of Weave's Pipeline):
// `freeze` (docs/freeze.md), `approval` (docs/approval-policies.md), `rollback` and `rollbackAfter`
// (docs/rollback.md). Each field's own checks are here; what depends on the rest of the Pipeline (the promotion in
// force, the environment's place, `spec.source`) is `checkEnvironmentGates`, which PipelineSpec calls.
import * as z from 'zod';
import { holdsForever, isTimeZone, parseWindowTime } from '../pipeline/freeze-window.js';
import type { ApprovalPolicy, FreezeWindow } from '../pipeline/environment-policies.js';
import { namesStrategy, type Promotion } from '../pipeline/promotion.js';
import { durationMs } from '../util/duration.js';

/** Windows per environment: a handful says a schedule; more would be a calendar, which this is not. */
export const MAX_FREEZE_WINDOWS = 20;
export const MAX_FREEZE_REASON_CHARS = 200;
export const MAX_REQUIRED_APPROVALS = 10;
/** The shortest and longest `rollbackAfter`: shorter would roll back a rollout still settling; longer leaves it broken. */
export const MIN_ROLLBACK_AFTER_MS = 60_000;
export const MAX_ROLLBACK_AFTER_MS = 24 * 3_600_000;

const WINDOW_TIME_FORM = 'must be a time such as 16:00 or Fri 16:00 (24-hour clock, Mon…Sun; midnight is 00:00)';

const windowTime = z.string().refine((text) => parseWindowTime(text) !== undefined, { message: WINDOW_TIME_FORM });

/** One recurring window; `to` is not inside it and may come before `from` (the window wraps). */
export const FreezeWindowSchema = z
  .strictObject({
    from: windowTime,
    to: windowTime,
    timeZone: z.string().refine(isTimeZone, { message: 'must be an IANA time zone such as Europe/Berlin' }),
    reason: z
      .string()
      .min(1, 'must not be empty (leave it out)')
      .max(MAX_FREEZE_REASON_CHARS, `must be at most ${MAX_FREEZE_REASON_CHARS} characters`)
      .optional(),
  })
  .superRefine((window, ctx) => {
    const from = parseWindowTime(window.from);
    const to = parseWindowTime(window.to);
    if (!from || !to) return; // said above
    if ((from.weekday === undefined) !== (to.weekday === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message:
          'from and to must both have a weekday (a weekly window: Fri 16:00 to Mon 08:00) or neither ' +
          '(a daily window: 22:00 to 06:00)',
      });
    } else if (from.weekday === to.weekday && from.minutes === to.minutes) {
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: 'must not be the same time as from (the window is empty)',
      });
    }
  }) satisfies z.ZodType<FreezeWindow>;

/** `spec.environments[].freeze`: when no promotion into the environment starts. */
export const FreezeWindows = z
  .array(FreezeWindowSchema)
  .max(MAX_FREEZE_WINDOWS, `must have at most ${MAX_FREEZE_WINDOWS} windows`)
  .superRefine((windows, ctx) => {
    if (holdsForever(windows)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'the windows leave no time at all between them, so no promotion would ever start ' +
          '(to stop promotions until further notice, use pipelinectl freeze)',
      });
    }
  });

/** The names of the Secrets holding HMAC keys: Kubernetes object names (DNS-1123 subdomains). */
const secretName = z
  .string()
  .max(253, 'must be at most 253 characters')
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    'must be the name of a Secret (a lowercase RFC 1123 name: a-z, 0-9, "-" and ".")',
  );
const principalPattern = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .regex(/^arn:\S+$/, 'must be an IAM principal ARN (pattern), starting with arn: and without white space');
const userName = z
  .string()
  .max(256, 'must be at most 256 characters')
  .regex(/^\S+$/, 'must be a user name: not empty, without white space');
const nonEmptyList = <T extends z.ZodType>(item: T, leaveOut: string) =>
  z.array(item).min(1, `must not be empty (leave it out ${leaveOut})`);

export const ApproversSchema = z
  .strictObject({
    keys: nonEmptyList(secretName, 'to let no webhook key approve').optional(),
    principals: nonEmptyList(principalPattern, 'to let no IAM principal approve').optional(),
    users: nonEmptyList(userName, 'to let no local user approve').optional(),
  })
  .superRefine((approvers, ctx) => {
    if (!approvers.keys && !approvers.principals && !approvers.users) {
      ctx.addIssue({
        code: 'custom',
        message: 'name who may approve: keys, principals or users (leave approvers out to let anyone approve)',
      });
    }
  });

/** `spec.environments[].approval`: how many distinct people approve a manual environment, and who may. */
export const ApprovalPolicySchema = z
  .strictObject({
    required: z
      .number()
      .refine((n) => Number.isInteger(n) && n >= 1 && n <= MAX_REQUIRED_APPROVALS, {
        message: `must be a whole number from 1 to ${MAX_REQUIRED_APPROVALS}`,
      })
      .optional(),
    approvers: ApproversSchema.optional(),
  })
  .superRefine((policy, ctx) => {
    if (policy.required === undefined && policy.approvers === undefined) {
      ctx.addIssue({ code: 'custom', message: 'set required, approvers or both (or leave approval out)' });
    }
  }) satisfies z.ZodType<ApprovalPolicy>;

/** `spec.environments[].rollback`: how a failed promotion is undone. */
export const RollbackStrategy = z.literal('pull-request', {
  error: 'must be pull-request (the only rollback strategy)',
});

/**
 * Whole hours, minutes and seconds, as `soak` is written (SoakDuration in schema.ts): undefined for anything else.
 * The same notation everywhere a Pipeline gives a duration.
 */
export function pipelineDurationMs(text: string): number | undefined {
  return /^(?:\d+[hms])+$/.test(text) ? durationMs(text) : undefined;
}

/** `spec.environments[].rollbackAfter`: how long the targets must have failed before the rollback is opened. */
export const RollbackAfter = z.string().superRefine((text, ctx) => {
  const ms = pipelineDurationMs(text);
  if (ms === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be a duration in whole hours, minutes and seconds, e.g. 10m or 1h30m',
    });
  } else if (ms < MIN_ROLLBACK_AFTER_MS) {
    ctx.addIssue({ code: 'custom', message: 'must be at least 1m' });
  } else if (ms > MAX_ROLLBACK_AFTER_MS) {
    ctx.addIssue({ code: 'custom', message: 'must be at most 24h' });
  }
});

/** What checkEnvironmentGates reads of a valid PipelineSpec. */
export interface GatedPipelineSpec {
  source?: unknown;
  promotion?: Promotion;
  environments: readonly {
    promotion?: Promotion;
    approval?: unknown;
    rollback?: unknown;
    rollbackAfter?: unknown;
  }[];
}

/** Where a cross-field problem is reported (zod's refinement context, as far as it is used). */
export interface IssueSink {
  addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void;
}

/**
 * The checks of the gates that depend on the rest of the Pipeline; each problem is at the field that cannot stay
 * (`environments.N.approval`). The promotion in force is the environment's own block, else the pipeline's when it
 * names a strategy (as resolvePipeline applies it).
 */
export function checkEnvironmentGates(spec: GatedPipelineSpec, ctx: IssueSink): void {
  const inherited = spec.promotion && namesStrategy(spec.promotion) ? spec.promotion : undefined;
  spec.environments.forEach((environment, index) => {
    const at = (field: string) => ['environments', index, field];
    const promotion = environment.promotion ?? inherited;
    // Where the fix goes: the environment's own block, the pipeline's it inherits, or a block it does not have yet.
    const promotionField = (field: string) =>
      environment.promotion
        ? `promotion.${field} on this environment`
        : inherited
          ? `spec.promotion.${field} (the promotion this environment inherits) or a promotion of its own`
          : `promotion.${field} on this environment (it has no promotion strategy yet)`;
    if (environment.approval !== undefined && promotion?.manual !== true) {
      ctx.addIssue({
        code: 'custom',
        path: at('approval'),
        message: `applies only to a manual environment: set ${promotionField('manual: true')}`,
      });
    }
    if (environment.rollback !== undefined) {
      if (index === 0 && spec.source === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: at('rollback'),
          message:
            'the first environment can be rolled back only with spec.source: without a source nothing is ' +
            'promoted into it, so there is no promoted revision to roll back',
        });
      } else if (promotion?.strategy['pull-request'] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: at('rollback'),
          message:
            'rollback: pull-request needs a pull-request promotion strategy (the rollback is a pull request ' +
            `to the same repository): set ${promotionField('strategy.pull-request')}`,
        });
      }
    } else if (environment.rollbackAfter !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: at('rollbackAfter'),
        message: 'is the grace period of a rollback: set rollback: pull-request, or leave rollbackAfter out',
      });
    }
  });
}
