// What the controller knows, read the way `pipelinectl status` reads it (the stored state and the decision on it):
// for the demo's view, its activity list, and its CI's decision to hold a release.
import type { Configuration } from '../config/index.js';
import { sameRevision } from '../flux/index.js';
import { objectKeyString, type ObjectKey, pipelineKeyOf } from '../pipeline/model.js';
import type { Store } from '../store/port.js';
import { loadPipelineView, type PipelineView } from '../views/pipeline-view.js';
import type { AuditLine } from './activity.js';

export class PipelineReader {
  private readonly keys: ObjectKey[];

  constructor(
    private readonly store: Store,
    configuration: Configuration,
  ) {
    this.keys = configuration.pipelines.map((pipeline) => pipelineKeyOf(pipeline));
  }

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
      if (env.state === 'promoting' || env.state === 'promoted' || env.state === 'in-progress') {
        return `${env.name} is being promoted to ${candidate}`;
      }
    }
    return undefined;
  }

  /** The audit trail of every pipeline, newest first. */
  async audit(): Promise<AuditLine[]> {
    const pages = await Promise.all(this.keys.map((key) => this.store.listAudit(key, { limit: 20 })));
    return pages.flatMap((page) =>
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
  }
}
