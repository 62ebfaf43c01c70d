// Opens the promotion's pull request on GitHub, or updates the one open from the branch, with the fewest writes:
//
// - an open pull request into the base known from the branch write (open-pull-requests.ts) is updated: its title and
//   body set where they differ, in one PATCH, or left alone when both are already right. No POST is sent that GitHub
//   would refuse (422, one open pull request per head and base);
// - otherwise one is opened. When GitHub refuses because one was opened meanwhile (a concurrent call), the open one
//   is found and updated (Weave's fallback).
//
// A pull request known open may have been merged or closed in the seconds since it was read: the PATCH's answer says
// so, and a new one is opened then (or, when the base already holds the branch, the merged one is the result).
import type { Logger } from '../../logging/logger.js';
import type { ObjectKey } from '../../pipeline/model.js';
import type { PullRequestWrite } from '../pull-request/host.js';
import { PromotionError } from '../port.js';
import { isValidationError, toPromotionError, type GitHubClient } from './client.js';
import { openPullRequestsFrom, type OpenPullRequest } from './open-pull-requests.js';

export interface GitHubPullRequestAccess {
  client: GitHubClient;
  repo: { owner: string; repo: string };
  secret: ObjectKey;
  logger?: Pick<Logger, 'info'>;
}

/**
 * The pull request's web URL. `known`: the pull requests open from the branch as the branch write last saw them;
 * undefined when it did not look (they are asked then).
 */
export async function openOrUpdateGitHubPullRequest(
  access: GitHubPullRequestAccess,
  write: PullRequestWrite,
  known: readonly OpenPullRequest[] | undefined,
): Promise<string> {
  const { client, repo } = access;
  const open = known ?? (await openPullRequestsFrom(client, repo, write.branch));
  const existing = open.find((pull) => pull.base === write.base);
  if (existing) {
    const stillOpen = await update(access, existing, write);
    if (stillOpen) return existing.url;
  }
  try {
    const { data } = await client.pulls.create({
      ...repo,
      title: write.title,
      head: write.branch,
      base: write.base,
      body: write.body,
    });
    access.logger?.info('opened pull request', { pullRequest: data.html_url, title: write.title });
    return data.html_url;
  } catch (error) {
    // Merged, with this branch's head, since it was read: that pull request brought the change.
    if (existing && isValidationError(error, /No commits between/i)) return existing.url;
    return findAfterRefusal(access, write, error);
  }
}

/** Sets the title and body where they differ; whether the pull request is still open (true when left alone). */
async function update(access: GitHubPullRequestAccess, pull: OpenPullRequest, write: PullRequestWrite) {
  const retitle = pull.title !== write.title;
  const rewrite = pull.body !== write.body;
  if (!retitle && !rewrite) return true;
  const { data } = await access.client.pulls.update({
    ...access.repo,
    pull_number: pull.number,
    ...(retitle ? { title: write.title } : {}),
    ...(rewrite ? { body: write.body } : {}),
  });
  access.logger?.info(retitle ? 'retitled pull request' : 'updated the pull request body', {
    pullRequest: pull.url,
    title: write.title,
  });
  return data.state === 'open';
}

/** After GitHub refused to open one: the open one for the branch, updated; else the refusal as a PromotionError. */
async function findAfterRefusal(
  access: GitHubPullRequestAccess,
  write: PullRequestWrite,
  createError: unknown,
): Promise<string> {
  const mine = await openPullRequestsFrom(access.client, access.repo, write.branch);
  const existing = mine.find((pull) => pull.base === write.base) ?? mine[0];
  if (existing) {
    await update(access, existing, write);
    return existing.url;
  }
  const cause = toPromotionError(createError, access.secret);
  if (cause.retryable) throw createError;
  // GitHub said one exists but does not list it yet: ask again later.
  const exists = isValidationError(createError, /already exists/i);
  throw new PromotionError(
    exists ? 'ConcurrentChange' : cause.kind,
    `failed to create or find existing PR: headBranch=${write.branch} baseBranch=${write.base}: ${cause.message}`,
    { cause: createError },
  );
}
