// Which of a pipeline's apps are on one (cluster, kind): what a `poll` message of that pair expects to find, records
// and decides for. Worked out once per definition object and kept as long as it is (RecentPipelines hands the same
// object to every poll message for 30 s): a pipeline across 200 clusters would otherwise have all its targets listed
// again by each of its 400 poll messages, most of the CPU time of a steady poll.
import { appKeyString, objectKeyString, type AppKey, type ObjectKey, type Pipeline } from '../pipeline/model.js';
import { appsOf } from '../pipeline-state/pipeline-state.js';

export interface PairApp {
  app: AppKey;
  /** `appKeyString(app)`. */
  key: string;
}

const byDefinition = new WeakMap<Pipeline, Map<string, PairApp[]>>();

const pairId = (cluster: ObjectKey, kind: string): string => `${objectKeyString(cluster)}|${kind}`;

/** The pipeline's apps (targets and source, each once) on `cluster` of `kind`. */
export function appsOnPair(pipeline: Pipeline, cluster: ObjectKey, kind: string): readonly PairApp[] {
  let pairs = byDefinition.get(pipeline);
  if (!pairs) {
    pairs = new Map();
    for (const app of appsOf(pipeline)) {
      const id = pairId(app.cluster, app.kind);
      const apps = pairs.get(id) ?? [];
      apps.push({ app, key: appKeyString(app) });
      pairs.set(id, apps);
    }
    byDefinition.set(pipeline, pairs);
  }
  return pairs.get(pairId(cluster, kind)) ?? [];
}
