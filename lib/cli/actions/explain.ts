// What `pipelinectl explain` prints: why each environment of a pipeline is where it is, from the decision the
// verifier would make now on the stored state (candidate, each environment's state and explanation, what it would
// do next), with the target statuses, approval marker and promotions behind it.
import type { Action } from '../../decision/index.js';
import { objectKeyString } from '../../pipeline/model.js';
import { CliError } from '../errors.js';
import { ago } from '../output.js';
import { healthOf, type EnvironmentView, type PipelineView } from '../pipeline-view.js';
import { approvalLine, promotionLine } from './status.js';

/** The explanation as lines; with `env`, only that environment (the candidate is always shown). */
export function explanation(view: PipelineView, env: string | undefined, now: Date): string[] {
  const { pipeline } = view.stored;
  const environments = env === undefined ? view.environments : view.environments.filter((e) => e.name === env);
  if (env !== undefined && environments.length === 0) {
    const names = view.environments.map((e) => e.name).join(', ');
    throw new CliError(`pipeline ${objectKeyString(view.key)} has no environment "${env}" (it has ${names})`);
  }
  const source = view.environments[0];
  const candidate =
    view.decision.candidate ?? `none (${source ? `${source.name}: ${source.message}` : 'no environments'})`;
  const lines = [
    `Pipeline ${objectKeyString(view.key)}: ${pipeline.appRef.kind} ${pipeline.appRef.name}`,
    `Candidate: ${candidate}`,
  ];
  for (const environment of environments) lines.push('', ...environmentLines(view, environment, now));

  const actions = view.decision.actions.filter((action) => env === undefined || action.env === env);
  lines.push('');
  if (actions.length === 0) lines.push('Next: nothing to do until a target, an approval or a promotion changes.');
  else lines.push(`Next, the verifier would: ${actions.map(actionText).join('; ')}.`);
  return lines;
}

function environmentLines(view: PipelineView, env: EnvironmentView, now: Date): string[] {
  const traits = [env.state, ...(env.manual ? ['manual'] : []), ...(env.strategy ? [env.strategy] : [])];
  const lines = [`${env.name} (${traits.join(', ')}): ${env.message}`];
  for (const { cluster, namespace, observed } of env.targets) {
    const name = `target ${objectKeyString(cluster)} ${namespace}`;
    if (!observed) {
      lines.push(`  ${name}: never observed`);
      continue;
    }
    const { status } = observed;
    const health = healthOf(observed);
    const revision = status.revision ?? 'no revision';
    const why = status.error ?? status.reason;
    const since = observed.changedAt === observed.observedAt ? '' : `, unchanged since ${ago(observed.changedAt, now)}`;
    lines.push(
      `  ${name}: ${revision}, ${health}, seen ${ago(observed.observedAt, now)}${since}${why ? `: ${why}` : ''}`,
    );
  }
  if (env.approval) lines.push(`  ${approvalLine(view.key, env.name, env.approval, now)}`);
  for (const record of env.promotions) lines.push(`  promotion: ${promotionLine(record, now)}`);
  return lines;
}

function actionText(action: Action): string {
  switch (action.type) {
    case 'promote':
      return `promote ${action.env} to ${action.revision}`;
    case 'request-approval':
      return `request an approval of ${action.revision} for ${action.env}${action.replaces ? ` (replacing the request for ${action.replaces})` : ''}`;
    case 'clear-approval':
      return `clear the approval request for ${action.revision} in ${action.env}`;
  }
}
