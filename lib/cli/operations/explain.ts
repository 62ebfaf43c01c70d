// What `pipelinectl explain` prints: why each environment of a pipeline is where it is, from the decision the
// verifier would make now on the stored state (candidate, each environment's state and explanation, what it would
// do next), with the target statuses, approval marker and promotions behind it.
import { timeLeftUntil, type Action } from '../../decision/index.js';
import { objectKeyString } from '../../pipeline/model.js';
import { phaseOf, summarizeTargets, type EnvironmentView, type PipelineView } from '../../views/pipeline-view.js';
import { oneLine } from '../../decision/text.js';
import { CliError } from '../errors.js';
import { ago } from '../output.js';
import {
  approvalLine,
  HOLDING_BACK_ROWS,
  promotionLine,
  statusJson,
  SUMMARIZED_ABOVE_TARGETS,
  summaryText,
  type PipelineStatusJson,
} from './status.js';

/**
 * What `pipelinectl explain -o json` prints: the pipeline as `status -o json` shows it (only ENV's entry when one is
 * named), and `next`, the actions the verifier would take now (only ENV's).
 */
export interface ExplainJson extends PipelineStatusJson {
  next: Action[];
}

export function explanationJson(view: PipelineView, env: string | undefined): ExplainJson {
  const shown = environmentsOf(view, env);
  const json = statusJson(view);
  return {
    ...json,
    environments: json.environments.filter((e) => shown.some((s) => s.name === e.name)),
    next: view.decision.actions.filter((action) => env === undefined || action.env === env),
  };
}

export interface ExplanationOptions {
  /** The flags that chose this run's backend (backendFlags), for the approve command of a waiting approval. */
  approveFlags?: readonly string[];
}

/** The explanation as lines; with `env`, only that environment (the candidate is always shown). */
export function explanation(
  view: PipelineView,
  env: string | undefined,
  now: Date,
  options: ExplanationOptions = {},
): string[] {
  const { pipeline } = view.stored;
  const environments = environmentsOf(view, env);
  const source = view.environments[0];
  const candidate =
    view.decision.candidate ?? `none (${source ? `${source.name}: ${source.message}` : 'no environments'})`;
  const lines = [
    `Pipeline ${objectKeyString(view.key)}: ${pipeline.appRef.kind} ${pipeline.appRef.name}`,
    `Candidate: ${candidate}`,
  ];
  const found = view.decision.source;
  if (found) lines.push(`Source: ${found.object} (${found.state}/${found.reason}): ${found.message}`);
  for (const environment of environments) lines.push('', ...environmentLines(view, environment, now, options));

  const actions = view.decision.actions.filter((action) => env === undefined || action.env === env);
  lines.push('', nextLine(actions));
  return lines;
}

/** The `Next` line: what the verifier would do now (`actions`: the whole pipeline's, or one environment's). */
export function nextLine(actions: readonly Action[]): string {
  if (actions.length === 0) return 'Next: nothing to do until a target, an approval or a promotion changes.';
  return `Next, the verifier would: ${actions.map(actionText).join('; ')}.`;
}

/** Every environment, or only `env`; a CliError naming the environments there are when it has no `env`. */
function environmentsOf(view: PipelineView, env: string | undefined): EnvironmentView[] {
  if (env === undefined) return view.environments;
  const environments = view.environments.filter((e) => e.name === env);
  if (environments.length === 0) {
    const names = view.environments.map((e) => e.name).join(', ');
    throw new CliError(`pipeline ${objectKeyString(view.key)} has no environment "${env}" (it has ${names})`);
  }
  return environments;
}

function environmentLines(
  view: PipelineView,
  env: EnvironmentView,
  now: Date,
  { approveFlags }: ExplanationOptions,
): string[] {
  const traits = [
    `${env.state}/${env.reason}`,
    ...(env.manual ? ['manual'] : []),
    ...(env.strategy ? [env.strategy] : []),
  ];
  const lines = [`${env.name} (${traits.join(', ')}): ${env.message}`];
  if (env.soakEndsAt) {
    const left = timeLeftUntil(env.soakEndsAt, now) ?? env.soakEndsAt;
    lines.push(`  ${env.state === 'soaking' ? 'soaking' : 'waiting for a soak'}: ${left}`);
  }
  if (env.state === 'frozen') {
    const left = env.frozenUntil === undefined ? undefined : (timeLeftUntil(env.frozenUntil, now) ?? env.frozenUntil);
    lines.push(`  frozen: ${left ?? 'until someone runs pipelinectl unfreeze'}`);
  }
  if (env.rollbackAt) lines.push(`  rollback: in ${timeLeftUntil(env.rollbackAt, now) ?? env.rollbackAt}`);
  // At fleet size, the counts and the targets holding the environment back, as `status` shows them.
  let shown = env.targets;
  let more: string | undefined;
  if (env.targets.length > SUMMARIZED_ABOVE_TARGETS) {
    const summary = summarizeTargets(view, env);
    shown = summary.holdingBack.slice(0, HOLDING_BACK_ROWS);
    const left = summary.holdingBack.length - shown.length;
    lines.push(`  ${oneLine(summaryText(summary))}${shown.length > 0 ? '; holding it back:' : ''}`);
    if (left > 0) more = `  … and ${left} more holding it back (pipelinectl status --all-targets lists every target)`;
  }
  for (const { cluster, namespace, observed } of shown) {
    const name = `target ${objectKeyString(cluster)} ${namespace}`;
    if (!observed) {
      lines.push(`  ${name}: never observed`);
      continue;
    }
    const { status } = observed;
    const { phase, reason } = phaseOf(observed);
    const revision = status.revision ?? 'no revision';
    const since = observed.changedAt === observed.observedAt ? '' : `, unchanged since ${ago(observed.changedAt, now)}`;
    const why = status.message ? `: ${status.message}` : '';
    lines.push(`  ${name}: ${revision}, ${phase}/${reason}, seen ${ago(observed.observedAt, now)}${since}${why}`);
  }
  if (more) lines.push(more);
  if (env.approval) lines.push(`  ${approvalLine(view.key, env.name, env.approval, now, approveFlags)}`);
  for (const record of env.promotions) lines.push(`  promotion: ${promotionLine(record, now)}`);
  return lines;
}

/** One action the verifier would take, as a person reads it. */
function actionText(action: Action): string {
  switch (action.type) {
    case 'promote':
      return `promote ${action.env} to ${action.revision}`;
    case 'request-approval':
      return `request an approval of ${action.revision} for ${action.env}${action.replaces ? ` (replacing the request for ${action.replaces})` : ''}`;
    case 'clear-approval':
      return `clear the approval request for ${action.revision} in ${action.env}`;
    case 'rollback':
      return `open a pull request rolling ${action.env} back from ${action.from} to ${action.revision}`;
  }
}
