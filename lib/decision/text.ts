// Wording shared by the decision's explanations. Each explanation is one line for a person running
// `pipelinectl explain`, so text that comes from outside (a target's reason, a read error, a PR URL) is flattened.
import type { PipelineTarget } from '../pipeline/model.js';
import { objectKeyString } from '../pipeline/model.js';

/** `flux-system/prod-eu apps`: the GitopsCluster, then the namespace of the app on it, as a person finds them. */
export function targetName(target: PipelineTarget): string {
  return `${objectKeyString(target.cluster)} ${target.namespace}`;
}

/**
 * `phrase: detail`, or just `phrase` when there is no detail, so an empty reason never leaves a dangling colon.
 */
export function withDetail(phrase: string, detail: string | undefined): string {
  const text = detail?.trim();
  return text ? `${phrase}: ${text}` : phrase;
}

/** Flattens line breaks: a Kubernetes condition message or an API error can span lines, an explanation cannot. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
