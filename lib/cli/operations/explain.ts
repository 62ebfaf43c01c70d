// What `pipelinectl explain` prints: why each environment of a pipeline is where it is, from the decision the
// verifier would make now on the stored state (candidate, each environment's state and explanation, what it would
// do next, or the person an environment waits for), with the target statuses, approval marker and promotions behind
// it.
import { isGraph } from '../../pipeline/environment-graph.js';
import { requiredApprovals } from '../../approval/approve.js';
import { timeLeftUntil, type Action } from '../../decision/index.js';
import { approveCommand, rejectCommand } from '../../notify/approve-command.js';
import { objectKeyString } from '../../pipeline/model.js';
import {
  approvalWaitingForPerson,
  phaseOf,
  summarizeTargets,
  type EnvironmentView,
  type PipelineView,
} from '../../views/pipeline-view.js';
import { oneLine } from '../../decision/text.js';
import { CliError } from '../errors.js';
import { ago } from '../output.js';
import { environmentStateText } from '../../views/state-words.js';
import {
  approvalLine,
  checkLine,
  HOLDING_BACK_ROWS,
  promotionLine,
  statusJson,
  SUMMARIZED_ABOVE_TARGETS,
  summaryText,
  type PipelineStatusJson,
} from './status.js';

/**
 * What `pipelinectl explain -o json` prints: the pipeline as `status -o json` shows it (only ENV's entry when one is
 * named), `next`, the actions the verifier would take now, and `waitingForApproval`, the environments that wait for a
 * person (both only ENV's).
 */
export interface ExplainJson extends PipelineStatusJson {
  next: Action[];
  waitingForApproval: ApprovalWaitingJson[];
}

/** An environment whose candidate waits for a person to approve or reject it, and the commands that do. */
export interface ApprovalWaitingJson {
  env: string;
  /** The revision waiting: the only one `approve` and `reject` accept there. */
  revision: string;
  /** The approvals counted so far, and how many the environment's approval policy requires. */
  approvals: number;
  required: number;
  /** `pipelinectl approve NS/NAME ENV --revision R`, with the flags that chose the backend explain ran on. */
  approveCommand: string;
  /** `pipelinectl reject NS/NAME ENV --revision R --reason '…'`: the reason is for the person to write. */
  rejectCommand: string;
}

export interface ExplanationOptions {
  /** The flags that chose this run's backend (backendFlags), for the approve and reject commands of an approval. */
  approveFlags?: readonly string[];
}

export function explanationJson(
  view: PipelineView,
  env: string | undefined,
  options: ExplanationOptions = {},
): ExplainJson {
  const shown = environmentsOf(view, env);
  const json = statusJson(view);
  const next = nextSteps(view, env, options);
  return {
    ...json,
    environments: json.environments.filter((e) => shown.some((s) => s.name === e.name)),
    next: next.actions,
    waitingForApproval: next.waitingForApproval,
  };
}

/**
 * What comes next for the pipeline (or its environment `env`): the verifier's actions, and the approvals waiting for
 * a person.
 */
export interface NextSteps {
  actions: Action[];
  waitingForApproval: ApprovalWaitingJson[];
}

export function nextSteps(view: PipelineView, env: string | undefined, options: ExplanationOptions = {}): NextSteps {
  const waitingForApproval: ApprovalWaitingJson[] = [];
  for (const environment of view.environments) {
    if (env !== undefined && environment.name !== env) continue;
    const marker = approvalWaitingForPerson(environment);
    if (!marker) continue;
    const { revision } = marker;
    waitingForApproval.push({
      env: environment.name,
      revision,
      approvals: marker.approvals?.length ?? 0,
      required: requiredApprovals(view.stored.pipeline, environment.name),
      approveCommand: approveCommand(view.key, environment.name, revision, options.approveFlags),
      rejectCommand: rejectCommand(view.key, environment.name, revision, options.approveFlags),
    });
  }
  return {
    actions: view.decision.actions.filter((action) => env === undefined || action.env === env),
    waitingForApproval,
  };
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

  const next = nextSteps(view, env, options);
  lines.push('', nextLine(next));
  for (const waiting of next.waitingForApproval) {
    lines.push(`  ${waiting.approveCommand}`, `  ${waiting.rejectCommand}`);
  }
  return lines;
}

/**
 * The `Next` line: what the verifier would do now, and which environment waits for a person to approve or reject
 * which revision (the whole pipeline's, or one environment's); the commands that do it are the caller's to show.
 */
export function nextLine({ actions, waitingForApproval }: NextSteps): string {
  const people = waitingForApproval.map(waitingText);
  if (actions.length === 0 && people.length === 0) {
    return 'Next: nothing to do until a target, an approval or a promotion changes.';
  }
  if (actions.length === 0) return `Next: ${people.join('; ')}.`;
  const verifier = `Next, the verifier would: ${actions.map(actionText).join('; ')}`;
  return people.length === 0 ? `${verifier}.` : `${verifier}; and ${people.join('; ')}.`;
}

/** `staging waits for a person to approve 6.9.2 (1 of 2 approvals so far), or to reject it`. */
function waitingText({ env, revision, approvals, required }: ApprovalWaitingJson): string {
  const count = required > 1 ? ` (${approvals} of ${required} approvals so far)` : '';
  return `${env} waits for a person to approve ${revision}${count}, or to reject it`;
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
    ...(isGraph(view.stored.pipeline.environments) && env.after.length > 0 ? [`after ${env.after.join(', ')}`] : []),
  ];
  const lines = [`${env.name}: ${environmentStateText(env)} (${traits.join(', ')}): ${env.message}`];
  if (env.soakEndsAt) {
    const left = timeLeftUntil(env.soakEndsAt, now) ?? env.soakEndsAt;
    lines.push(`  ${env.state === 'soaking' ? 'soaking' : 'waiting for a soak'}: ${left}`);
  }
  if (env.state === 'frozen') {
    const left = env.frozenUntil === undefined ? undefined : (timeLeftUntil(env.frozenUntil, now) ?? env.frozenUntil);
    lines.push(`  frozen: ${left ?? 'until someone runs pipelinectl unfreeze'}`);
  }
  if (env.rollbackAt) lines.push(`  rollback: in ${timeLeftUntil(env.rollbackAt, now) ?? env.rollbackAt}`);
  if (env.verificationEndsAt) {
    lines.push(
      `  verified: once the checks hold, ${timeLeftUntil(env.verificationEndsAt, now) ?? env.verificationEndsAt}`,
    );
  }
  for (const result of env.verification?.results ?? []) lines.push(`  ${checkLine(result, now)}: ${result.message}`);
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
    case 'verify':
      return `evaluate the verification checks of ${action.env} on ${action.revision}`;
    case 'serve-current':
      return `serve ${action.revision}, which ${action.env} runs, to its leaf clusters until its first promotion`;
  }
}
