// Deployments shown on the Git host (docs/deployments.md): once a promotion pull request is merged, its rollout is
// recorded where developers look, in each host's own terms (GitHub and GitLab deployments, a Bitbucket Server build
// status, an Azure DevOps pull-request status). What is recorded and when is decided by the verifier
// (lib/verifier/host-deployments.ts); this is what an adapter is asked to write, and the names every host shares.
import type { HostDeploymentRecord, HostDeploymentState } from '../../decision/types.js';
import { PromotionError } from '../port.js';

/** What an adapter records: one environment's rollout of one revision, from one merged pull request. */
export interface DeploymentReport {
  /** The merged pull request's web URL. */
  pullRequestUrl: string;
  /** The branch it was merged from: the environment's promotion branch (naming.ts). */
  branch: string;
  /** The environment as the host shows it: `{namespace}/{pipeline}/{environment}` (deploymentEnvironment). */
  environment: string;
  revision: string;
  state: HostDeploymentState;
  /** One line for a person, cut to fit (DEPLOYMENT_DESCRIPTION_LENGTH). */
  description: string;
  /** The environment's address, where the host shows one. */
  environmentUrl?: string;
  /** What was recorded before for this environment and revision: updated, never made twice. */
  recorded?: RecordedDeployment;
}

/** The host's id of the deployment (or of the status's key), and the merge commit it is on. */
export type RecordedDeployment = Omit<HostDeploymentRecord, 'at' | 'state'>;

/** GitHub takes at most 140 characters of a status description; the other hosts take more. */
export const DEPLOYMENT_DESCRIPTION_LENGTH = 140;

/** The environment's name on the host: unique per pipeline environment, readable on an Environments page. */
export function deploymentEnvironment(pipeline: { namespace: string; name: string }, env: string): string {
  return `${pipeline.namespace}/${pipeline.name}/${env}`;
}

/** The key of a status (Bitbucket Server's `key`, Azure DevOps's context name): one per environment. */
export function deploymentStatusKey(environment: string): string {
  return `pipeline-controller/${environment}`;
}

/** A description the host takes: one line, at most DEPLOYMENT_DESCRIPTION_LENGTH characters. */
export function deploymentDescription(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= DEPLOYMENT_DESCRIPTION_LENGTH ? line : `${line.slice(0, DEPLOYMENT_DESCRIPTION_LENGTH - 1)}…`;
}

/** Whether one set of credentials may record deployments on a repository, as its host tells it (`pipelinectl check`). */
export interface DeploymentAccess {
  /** Undefined when the host does not tell (for such credentials, or at all). */
  canRecord: boolean | undefined;
  /** What the host said, and the permission that is missing or needed, for a person; never a credential. */
  detail: string;
}

/** A host whose adapter records no deployments. */
export function deploymentsUnsupported(): PromotionError {
  return new PromotionError('Unsupported', 'this Git host records no deployments');
}

/** The number at the end of a pull (merge) request's web URL (`…/pull/3`, `…/merge_requests/3`, `…/pullrequest/3`). */
export function pullRequestNumber(url: string): number {
  const number = /\/(\d+)\/?(?:[?#].*)?$/.exec(url)?.[1];
  if (number === undefined) throw new PromotionError('Invalid', `not a pull request URL: ${url}`);
  return Number(number);
}
