// What every reader of a Flux object does before its own rules: check the kind and that the API version is one it
// reads, parse the shape it needs (zod), and report a suspended object as such. In one place, so the readers answer
// an object they cannot use the same way: an Unreadable status naming the object, never an exception. A revision
// field is declared with `revisionField`, so a value that is not a revision of its kind never reaches a reader's rules.
import * as z from 'zod/mini';
import { ConditionListSchema, describeIssue, typeMeta } from './conditions.js';
import { invalidRevisionMessage, isRevisionOf, type RevisionKind } from './revision.js';
import type { TargetStatus } from './target-status.js';
import { customIssue } from '../util/zod-issue.js';
import { suspendedStatus, unreadableTarget } from './target-status.js';

/** The fields the suspension rule reads; every Flux object the controller reads has them. */
interface Suspendable {
  spec?: { suspend?: boolean } | undefined;
}

export interface FluxObjectKind<T extends Suspendable, V extends string> {
  kind: string;
  /** The kind with its article, for messages: `a HelmRelease`, `an ImagePolicy`. */
  named: string;
  group: string;
  /** The versions the reader reads, best first. */
  versions: readonly V[];
  schema: z.ZodMiniType<T>;
  /** The status by the kind's own rules, for an object of `version` that parsed. */
  read(object: T, version: V, ref: string): TargetStatus;
}

type Shape = z.core.$ZodShape;

/**
 * The schema of a Flux object: the fields every reader reads (`metadata.generation`, `spec.suspend`,
 * `status.observedGeneration`, `status.conditions`) and a kind's own in `spec` and `status`. Loose, so a field a newer
 * Flux adds does not make an object unreadable; `spec` and `status` may be absent, as on an object just created.
 */
export function fluxObjectSchema<
  Spec extends Shape = Record<never, never>,
  Status extends Shape = Record<never, never>,
>(own: { spec?: Spec; status?: Status }) {
  return z.looseObject({
    metadata: z.looseObject({ generation: z.int() }),
    spec: z.optional(z.looseObject({ suspend: z.optional(z.boolean()), ...(own.spec as Spec) })),
    status: z.optional(
      z.looseObject({
        observedGeneration: z.optional(z.int()),
        conditions: z.optional(ConditionListSchema),
        ...(own.status as Status),
      }),
    ),
  });
}

export function readFluxObject<T extends Suspendable, V extends string>(
  reader: FluxObjectKind<T, V>,
  object: unknown,
): TargetStatus {
  const { kind, apiVersion, ref } = typeMeta(object);
  if (kind !== reader.kind) {
    return unreadableTarget('UnsupportedKind', `expected ${reader.named}, got kind ${kind ?? '(none)'}`);
  }
  const version = reader.versions.find((candidate) => apiVersion === `${reader.group}/${candidate}`);
  if (version === undefined) {
    return unreadableTarget(
      'UnsupportedVersion',
      `${reader.kind} ${ref}: apiVersion ${apiVersion ?? '(none)'} is not supported (${supported(reader)})`,
    );
  }
  const parsed = reader.schema.safeParse(object);
  if (!parsed.success) {
    const invalid = invalidRevisionOf(parsed.error);
    if (invalid) return unreadableTarget('InvalidRevision', `${reader.kind} ${ref}: ${invalid}`);
    return unreadableTarget('InvalidObject', `${reader.kind} ${ref}: ${describeIssue(parsed.error, object)}`);
  }
  const status = reader.read(parsed.data, version, ref);
  return parsed.data.spec?.suspend === true ? suspendedStatus(status) : status;
}

/** What marks the issue of a revision field, with what the message needs. */
interface RevisionIssueParams {
  revisionKind: RevisionKind;
  /** The value that is not a revision (a field's, or the part of it that names the revision). */
  revision: string;
}

/**
 * A string field holding a revision of `kind` (lib/flux/revision.ts has the rule). With `emptyForNone`, the empty
 * string is allowed: Flux leaves such a field empty when there is none yet, and the readers take it so. `of` picks
 * the revision out of a field that holds more (an image reference's tag); undefined: the field names none.
 */
export function revisionField(
  kind: RevisionKind,
  { emptyForNone = false, of = (value: string): string | undefined => value } = {},
): z.ZodMiniType<string> {
  return z.string().check(
    z.superRefine((value, context) => {
      if (emptyForNone && value === '') return;
      const revision = of(value);
      if (revision === undefined || isRevisionOf(kind, revision)) return;
      const params: RevisionIssueParams = { revisionKind: kind, revision };
      context.addIssue({ code: 'custom', message: 'not a revision', params });
    }),
  );
}

/** `status.history.0.chartVersion "*" is not a Helm chart version (SemVer 2)`, for the first revision issue. */
function invalidRevisionOf(error: z.core.$ZodError): string | undefined {
  const found = customIssue(error, isRevisionIssueParams);
  return found && `${found.field} ${invalidRevisionMessage(found.params.revisionKind, found.params.revision)}`;
}

function isRevisionIssueParams(
  params: Record<string, unknown>,
): params is Record<string, unknown> & RevisionIssueParams {
  return typeof params.revisionKind === 'string' && typeof params.revision === 'string';
}

/** `helm.toolkit.fluxcd.io/v2, v2beta2 or v2beta1`. */
function supported({ group, versions }: { group: string; versions: readonly string[] }): string {
  const [first, ...rest] = versions;
  const last = rest.pop();
  const listed = [`${group}/${first ?? ''}`, ...rest].join(', ');
  return last === undefined ? listed : `${listed} or ${last}`;
}
