// The poll's read of the promotions' pull requests (docs/promotion-strategies.md, "Pull requests"): an open pull
// request is not a promotion done, so while one is open (or not read yet) the scheduled poll asks its Git host where
// it stands, once per poll, and records the answer on the promotion record; the decision then says `pull request
// open`, `pull request closed without merging`, or (merged) that the targets are taking it. Flux's events come often
// and say nothing of pull requests: only the poll reads the host, so its cost is one request per open pull request
// per poll interval, and none once it is merged or closed.
import { promotionPullRequest } from '../decision/promotion-pull-request.js';
import type { PullRequestState } from '../decision/types.js';
import { redact } from '../logging/redaction.js';
import { objectKeyString, type Pipeline } from '../pipeline/model.js';
import type { VersionedPromotionRecord } from '../store/port.js';
import type { VerifierDeps } from './deps.js';
import { errorMessage } from '../util/error-message.js';

/**
 * Reads from its host, once, the pull request of each environment's newest promotion (the candidate's, or the one
 * before a newer candidate's promotion starts) while the record says it is open, and records what changed with a
 * conditional write. Older records of an environment are left alone: every promotion of it uses one branch, so
 * their pull request is the newest one's or was closed or merged before it. A host that cannot be read (a rate limit,
 * a 5xx, a revoked token) leaves the record as it was, logged; it never fails the poll. Returns the records with
 * what was recorded, or undefined when no pull request moved on from open (a first read that finds it open, as it
 * was counted, is recorded and changes no decision).
 */
export async function readPullRequestStates(
  pipeline: Pipeline,
  promotions: readonly VersionedPromotionRecord[],
  deps: Pick<VerifierDeps, 'store' | 'promoter' | 'logger' | 'now'>,
): Promise<VersionedPromotionRecord[] | undefined> {
  const ask = deps.promoter.pullRequestState?.bind(deps.promoter);
  if (!ask) return undefined;
  const updated = new Map<VersionedPromotionRecord, VersionedPromotionRecord>();
  let moved = false;
  const asked = new Set<string>();
  for (const env of pipeline.environments) {
    const record = newestOf(promotions.filter((candidate) => candidate.env === env.name));
    const pull = record && promotionPullRequest(record, env.promotion);
    if (!record || pull?.state !== 'open' || asked.has(pull.url)) continue;
    asked.add(pull.url);
    const where = {
      pipeline: objectKeyString(pipeline),
      env: env.name,
      revision: record.revision,
      pullRequest: pull.url,
    };
    let state: PullRequestState | undefined;
    try {
      state = await ask({ pipeline, env, url: pull.url });
    } catch (error) {
      // The record keeps what the host said last; a host's answer can repeat a credential, so the text is redacted.
      deps.logger.warn('cannot read the promotion pull request; its state stays as it was', {
        ...where,
        error: redact(errorMessage(error)),
      });
      continue;
    }
    if (state === undefined) {
      deps.logger.warn('the Git host lists no such pull request from the promotion branch', where);
      continue;
    }
    if (state === record.pullRequest?.state) continue;
    const now = deps.now();
    if (!(await deps.store.recordPullRequestState(record, state, now))) {
      deps.logger.debug('the promotion record moved on meanwhile; the pull request is read again next poll', where);
      continue;
    }
    deps.logger.info('promotion pull request', { ...where, state });
    if (state !== pull.state) moved = true;
    updated.set(record, {
      ...record,
      pullRequest: { state, seenAt: now.toISOString() },
      version: record.version + 1,
    });
  }
  if (!moved) return undefined;
  return promotions.map((record) => updated.get(record) ?? record);
}

/** The record created last: the environment's newest promotion. */
function newestOf(records: readonly VersionedPromotionRecord[]): VersionedPromotionRecord | undefined {
  return records.reduce<VersionedPromotionRecord | undefined>(
    (newest, record) =>
      newest === undefined || Date.parse(record.createdAt) > Date.parse(newest.createdAt) ? record : newest,
    undefined,
  );
}
