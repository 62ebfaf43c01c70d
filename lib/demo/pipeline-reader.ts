// What the controller knows, read the way `pipelinectl status` reads it (the stored state and the decision on it):
// for the demo's view, its activity list, and its CI's decision to hold a release.
import { sameRevision } from '../flux/index.js';
import { objectKeyString, type ObjectKey } from '../pipeline/model.js';
import type { Store, StoredConfigSource } from '../store/port.js';
import { loadPipelineView, type PipelineView } from '../views/pipeline-view.js';
import type { AuditLine } from './activity.js';

export class PipelineReader {
  /**
   * `pipelines`: every Pipeline of the demo, those its ConfigSources apply included (they are read once applied);
   * `configSources`: the sources whose syncs the activity shows.
   */
  constructor(
    private readonly store: Store,
    private readonly keys: readonly ObjectKey[],
    private readonly configSources: readonly ObjectKey[] = [],
  ) {}

  async views(): Promise<PipelineView[]> {
    const now = new Date();
    const views = await Promise.all(this.keys.map((key) => loadPipelineView(this.store, key, now)));
    return views.filter((view) => view !== undefined);
  }

  /**
   * Why CI should not release yet: the last release is still on its way through the pipeline (the first environment
   * has not run it yet, an approval waits, or a later environment is being promoted). Holding it means every release
   * you approve reaches the last environment: the product promotes only the current candidate, and a new release
   * would overtake it. `--keep-releasing` does without this, as a busy CI would.
   */
  async holdReason(pipeline: string, released: string | undefined): Promise<string | undefined> {
    const key = this.keys.find((candidate) => objectKeyString(candidate) === pipeline);
    const view = key && (await loadPipelineView(this.store, key, new Date()));
    if (!view) return `${pipeline} is not applied yet`;
    const { candidate } = view.decision;
    if (released !== undefined && (candidate === undefined || !sameRevision(candidate, released))) {
      return `waiting until ${view.environments[0]?.name ?? 'the first environment'} runs ${released}`;
    }
    for (const env of view.environments) {
      if (env.state === 'waiting-approval') return `${env.name} waits for approval of ${candidate}`;
      const underWay: readonly string[] = ['promoting', 'pull-request-open', 'promoted', 'in-progress'];
      if (underWay.includes(env.state)) {
        return `${env.name} is being promoted to ${candidate}`;
      }
    }
    return undefined;
  }

  /** Whether every ConfigSource has had a first sync: applied its commit, or failed saying why. */
  async sourcesSynced(): Promise<boolean> {
    const sources = await Promise.all(this.configSources.map((key) => this.store.getConfigSource(key)));
    return sources.every(
      (source) =>
        source === undefined || source.status.lastAttemptedRevision !== undefined || failure(source) !== undefined,
    );
  }

  /** The audit trail of every pipeline and every ConfigSource, and each source's failed sync, newest first. */
  async audit(): Promise<AuditLine[]> {
    const [pages, sources] = await Promise.all([
      Promise.all(this.keys.map((key) => this.store.listAudit(key, { limit: 20 }))),
      Promise.all(this.configSources.map((key) => this.configSourceLines(key))),
    ]);
    const pipelines = pages.flatMap((page) =>
      page.items.map((entry) => {
        const pipeline = objectKeyString(entry.pipeline);
        const env = entry.env === undefined ? '' : ` ${entry.env}`;
        return {
          at: entry.at,
          message: `${pipeline}${env}: ${entry.message}`,
          id: `${pipeline} ${entry.at} ${entry.type} ${entry.env ?? ''} ${entry.revision ?? ''}`,
        };
      }),
    );
    return [...pipelines, ...sources.flat()];
  }

  /** A source's applied commits that changed something, and why its last sync failed, if it did. */
  private async configSourceLines(key: ObjectKey): Promise<AuditLine[]> {
    const name = `ConfigSource ${objectKeyString(key)}`;
    const [page, stored] = await Promise.all([
      this.store.listConfigAudit(key, { limit: 5 }),
      this.store.getConfigSource(key),
    ]);
    const applied = page.items.map((entry) => {
      const changes = [
        ...entry.created.map((object) => `created ${object}`),
        ...entry.configured.map((object) => `changed ${object}`),
        ...entry.pruned.map((object) => `pruned ${object}`),
      ];
      return {
        at: entry.at,
        message: `${name} applied ${shortRevision(entry.revision)} from Git: ${changes.join(', ')}`,
        id: `${name} ${entry.at} ${entry.revision}`,
      };
    });
    const failed = stored && failure(stored);
    return failed
      ? [...applied, { ...failed, message: `${name}: ${failed.message}`, id: `${name} ${failed.id}` }]
      : applied;
  }
}

function failure(stored: StoredConfigSource): AuditLine | undefined {
  const ready = stored.status.conditions.find((condition) => condition.type === 'Ready');
  if (ready?.status !== 'False') return undefined;
  return {
    at: ready.lastTransitionTime,
    message: `not applied (${ready.reason}): ${ready.message}`,
    id: `${stored.status.lastAttemptedRevision ?? ''} ${ready.reason} ${ready.message}`,
  };
}

/** `main@sha1:1a2b3c4`: the commit's first seven digits, as Git shows it. */
function shortRevision(revision: string): string {
  return revision.replace(/(@sha1:[0-9a-f]{7})[0-9a-f]+$/, '$1');
}
