// The rows of one target: whether its cluster answers with the stored credentials (`cluster-reachable`), and whether
// the app object exists there and in which API version the cluster serves it (`app-object`). Both come from one read
// of the object, the read the verifier makes; how it fails says which row fails. A pipeline's source is checked the
// same way (`source-object`), and must also name a version for the first environment to be promoted to it.
import { ClusterAccessError, type ClusterErrorKind } from '../clusters/port.js';
import { readTargetStatus } from '../flux/index.js';
import { isSourceKind, objectKeyString, type AppKey } from '../pipeline/model.js';
import type { CheckReason, CheckRow, CheckTarget } from './check-row.js';
import { errorMessage } from '../util/error-message.js';

/** Reads an app object as the cluster serves it; undefined when it does not exist. Throws ClusterAccessError. */
export type AppRead = (app: AppKey) => Promise<Record<string, unknown> | undefined>;

/** The failures that leave the cluster unanswered (or unauthenticated): the object is then not looked at. */
const CLUSTER_FAILURES = ['unreachable', 'timeout', 'unauthorized', 'bad-config'] as const satisfies readonly (
  ClusterErrorKind | CheckReason
)[];

function leftUnanswered(kind: ClusterErrorKind): kind is (typeof CLUSTER_FAILURES)[number] {
  return (CLUSTER_FAILURES as readonly string[]).includes(kind);
}

export async function targetRows(
  place: { pipeline: string; environment: string },
  app: AppKey,
  read: AppRead,
): Promise<[CheckRow, CheckRow]> {
  const cluster = objectKeyString(app.cluster);
  const target: CheckTarget = { cluster, namespace: app.namespace };
  const object = `${app.kind} ${app.namespace}/${app.name}`;
  const row = (kind: CheckRow['kind'], outcome: CheckRow['outcome'], reason: CheckReason, message: string) =>
    ({ ...place, target, kind, outcome, reason, message }) satisfies CheckRow;
  const answered = row('cluster-reachable', 'ok', 'cluster-answered', `cluster ${cluster} answers`);
  const source = isSourceKind(app.kind);
  const objectKind = source ? 'source-object' : 'app-object';

  let found: Record<string, unknown> | undefined;
  try {
    found = await read(app);
  } catch (error) {
    const unanswered = (reason: CheckReason, message: string): [CheckRow, CheckRow] => [
      row('cluster-reachable', 'failed', reason, message),
      row(objectKind, 'skipped', 'earlier-check-failed', `${object}: not read, cluster ${cluster} did not answer`),
    ];
    // The reader throws ClusterAccessError only; anything else is no proof that the cluster answered.
    if (!(error instanceof ClusterAccessError)) {
      return unanswered('server-error', `cluster ${cluster}: ${errorMessage(error)}`);
    }
    if (leftUnanswered(error.kind)) return unanswered(error.kind, error.message);
    // Forbidden, or an answer the reader cannot use (Flux not installed, a 5xx, over its bounds): the cluster did answer.
    return [
      answered,
      row(objectKind, 'failed', error.kind === 'forbidden' ? 'forbidden' : 'server-error', error.message),
    ];
  }
  if (source) return [answered, sourceRow(row, object, cluster, found)];
  if (!found) {
    return [
      answered,
      row(
        'app-object',
        'failed',
        'app-absent',
        `${object} not found on cluster ${cluster}: promotions stop at ${place.environment} until it exists`,
      ),
    ];
  }
  const apiVersion = typeof found.apiVersion === 'string' ? found.apiVersion : undefined;
  return [
    answered,
    {
      ...row(
        'app-object',
        'ok',
        'app-found',
        `${object} exists on cluster ${cluster}, served as ${apiVersion ?? 'an unnamed version'}`,
      ),
      ...(apiVersion !== undefined && { apiVersion }),
    },
  ];
}

/** The source's row: it exists, and names a version the first environment can be promoted to. */
function sourceRow(
  row: (kind: CheckRow['kind'], outcome: CheckRow['outcome'], reason: CheckReason, message: string) => CheckRow,
  object: string,
  cluster: string,
  found: Record<string, unknown> | undefined,
): CheckRow {
  if (!found) {
    const message = `source ${object} not found on cluster ${cluster}: the first environment is not promoted from it`;
    return row('source-object', 'failed', 'source-absent', message);
  }
  const apiVersion = typeof found.apiVersion === 'string' ? found.apiVersion : undefined;
  const served = { ...(apiVersion !== undefined && { apiVersion }) };
  const status = readTargetStatus(found);
  if (status.phase !== 'Ready' || status.revision === undefined) {
    // It may resolve a version later (a first scan, a registry outage): not a configuration error by itself.
    const message = `source ${object} on cluster ${cluster} names no version now (${status.phase}): ${status.message}`;
    return { ...row('source-object', 'warning', 'source-without-version', message), ...served };
  }
  const message = `source ${object} on cluster ${cluster} names ${status.revision}, served as ${apiVersion ?? 'an unnamed version'}`;
  return { ...row('source-object', 'ok', 'source-found', message), ...served };
}
