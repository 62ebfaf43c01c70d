// A ClusterReader that answers what a test scripted, per app and per (cluster, kind), and records every call: the
// verifier's rules are tested without a Kubernetes API server. An app object put on a cluster is what a GET of it
// returns and what a LIST of its (cluster, kind) includes; an app never put is not found. Flagger Canaries likewise.
import { ClusterAccessError, type ClusterErrorKind, type ClusterReader } from '../clusters/port.js';
import type { AppKind } from '../config/schema.js';
import { appKeyString, objectKeyString, type AppKey, type ObjectKey } from '../pipeline/model.js';

export type ClusterCall =
  | { method: 'getApp'; app: string }
  | { method: 'listApps'; cluster: string; kind: AppKind; namespaces: string[] }
  | { method: 'getCanary'; cluster: string; canary: string };

/** A ClusterAccessError of `kind`, as the Kubernetes adapter would throw it. */
export function clusterFault(kind: ClusterErrorKind, message = `cluster fault: ${kind}`): ClusterAccessError {
  return new ClusterAccessError(kind, message);
}

export class ScriptedClusters implements ClusterReader {
  readonly calls: ClusterCall[] = [];
  readonly #objects = new Map<string, { app: AppKey; object: Record<string, unknown> }>();
  readonly #getFaults = new Map<string, Error>();
  readonly #listFaults = new Map<string, Error>();
  /** Canaries, and the faults of their GETs, by `cluster/namespace/name`. */
  readonly #canaries = new Map<string, Record<string, unknown> | Error>();

  /** The app object as its cluster serves it, named after `app` whatever its own metadata says. */
  put(app: AppKey, object: Record<string, unknown>): this {
    const metadata = {
      ...((object.metadata ?? {}) as Record<string, unknown>),
      namespace: app.namespace,
      name: app.name,
    };
    this.#objects.set(appKeyString(app), { app, object: { ...object, metadata } });
    this.#getFaults.delete(appKeyString(app));
    return this;
  }

  /** The app is gone from its cluster: a GET answers not found, a LIST leaves it out. */
  remove(app: AppKey): this {
    this.#objects.delete(appKeyString(app));
    this.#getFaults.delete(appKeyString(app));
    return this;
  }

  /** A GET of the app throws `error` (until the app is put or removed again); a LIST is not affected. */
  failGet(app: AppKey, error: Error): this {
    this.#getFaults.set(appKeyString(app), error);
    return this;
  }

  /** A LIST of (cluster, kind) throws `error`; undefined lists again. */
  failList(cluster: ObjectKey, kind: AppKind, error: Error | undefined): this {
    const id = listId(cluster, kind);
    if (error) this.#listFaults.set(id, error);
    else this.#listFaults.delete(id);
    return this;
  }

  /** The Canary as `cluster` serves it; undefined: it is gone; an Error: its GET throws that. */
  putCanary(cluster: ObjectKey, canary: ObjectKey, object: Record<string, unknown> | Error | undefined): this {
    const id = canaryId(cluster, canary);
    if (object === undefined) this.#canaries.delete(id);
    else this.#canaries.set(id, object instanceof Error ? object : structuredClone(object));
    return this;
  }

  getCanary(cluster: ObjectKey, canary: ObjectKey): Promise<Record<string, unknown> | undefined> {
    this.calls.push({ method: 'getCanary', cluster: objectKeyString(cluster), canary: objectKeyString(canary) });
    const found = this.#canaries.get(canaryId(cluster, canary));
    if (found instanceof Error) return Promise.reject(found);
    return Promise.resolve(found && structuredClone(found));
  }

  getApp(app: AppKey): Promise<Record<string, unknown> | undefined> {
    const id = appKeyString(app);
    this.calls.push({ method: 'getApp', app: id });
    const fault = this.#getFaults.get(id);
    if (fault) return Promise.reject(fault);
    const found = this.#objects.get(id);
    return Promise.resolve(found && structuredClone(found.object));
  }

  listApps(cluster: ObjectKey, kind: AppKind, namespaces: readonly string[]): Promise<Record<string, unknown>[]> {
    this.calls.push({ method: 'listApps', cluster: objectKeyString(cluster), kind, namespaces: [...namespaces] });
    const fault = this.#listFaults.get(listId(cluster, kind));
    if (fault) return Promise.reject(fault);
    const objects = [...this.#objects.values()]
      .filter(({ app }) => objectKeyString(app.cluster) === objectKeyString(cluster) && app.kind === kind)
      .map(({ object }) => structuredClone(object));
    return Promise.resolve(objects);
  }
}

function listId(cluster: ObjectKey, kind: AppKind): string {
  return `${objectKeyString(cluster)}/${kind}`;
}

function canaryId(cluster: ObjectKey, canary: ObjectKey): string {
  return `${objectKeyString(cluster)}/${objectKeyString(canary)}`;
}
