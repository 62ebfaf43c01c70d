// How the GitHub adapter makes the promotion branch hold the base commit plus the promotion's changes, with as few
// writes as GitHub allows. Writes count: Octokit spaces them 1 s apart, as GitHub asks against its secondary rate
// limits, so each write is a second of a promotion's latency.
//
// - The branch already holds the change (a repeated or resumed promotion): the tree the change needs is computed here
//   from the base tree's listing (tree-id.ts) and compared with the head's, so nothing is written.
// - One file changes and no pull request is open from the branch: the contents API writes the blob, the tree, the
//   commit and the ref move in one request (`PUT /contents/{path}`, its parent the branch's head), after the branch is
//   created on, or reset onto, the base commit: 2 writes. The reset is never made under an open pull request: GitHub
//   closes a pull request whose branch has nothing left to merge.
// - Otherwise (several files, an executable file, an open pull request): a tree with the files' content inline (GitHub
//   makes the blobs), a commit on the base, then the ref created or force-moved: 3 writes.
//
// Concurrent calls converge: a ref created meanwhile is reused or moved, a file changed meanwhile (409) sends the call
// round again, and a round finds the branch holding the change once any call has written it.
import type { BranchWrite, FileChange } from '../pull-request/host.js';
import { PromotionError } from '../port.js';
import { isRequestError, isValidationError, type GitHubClient } from './client.js';
import { openPullRequestsFrom, type OpenPullRequest } from './open-pull-requests.js';
import { treeIdAfter, type ListedTreeEntry } from './tree-id.js';

export type BranchWriteWay =
  /** The branch already held the change: nothing was written. */
  | 'unchanged'
  /** One file through the contents API, after the branch was put on the base when it was elsewhere. */
  | 'file-commit'
  /** A tree with the changed files inline, a commit, and the ref created or moved. */
  | 'tree-commit';

export interface BranchWritten {
  way: BranchWriteWay;
  /** The pull requests open from the branch when it was last read (none when it did not exist). */
  openPullRequests: readonly OpenPullRequest[];
}

/** What the adapter learnt of the base commit when it listed it: its tree, and every entry of it. */
export interface BaseListing {
  tree: string;
  entries: readonly ListedTreeEntry[];
  /** Each regular file's mode, by path. */
  modes: ReadonlyMap<string, string>;
}

export interface GitHubBranchAccess {
  client: GitHubClient;
  repo: { owner: string; repo: string };
  webUrl: string;
  branchHead(branch: string): Promise<string | undefined>;
  treeOf(commit: string): Promise<string>;
}

/** A larger file goes through a tree: a manifest is far smaller, and the contents API carries it in base64. */
const MAX_FILE_COMMIT_BYTES = 1024 * 1024;
/** Rounds before giving up on a branch that keeps changing (a round re-reads it). */
const ROUNDS = 4;

export async function writeGitHubBranch(
  access: GitHubBranchAccess,
  write: BranchWrite,
  listing: BaseListing | undefined,
): Promise<BranchWritten> {
  const { client, repo } = access;
  const ref = `heads/${write.branch}`;
  const modeOf = (path: string) => listing?.modes.get(path) ?? '100644';
  const wanted = listing
    ? treeIdAfter(
        listing.entries,
        write.changes.map((change) => ({ path: change.path, mode: modeOf(change.path), blobId: change.blobId })),
      )
    : undefined;
  const oneFile = wanted === undefined ? undefined : fileCommitCandidate(write.changes, modeOf);

  let tree: string | undefined;
  let commit: string | undefined;
  const createTree = async () => {
    tree ??= (
      await client.git.createTree({
        ...repo,
        base_tree: listing?.tree ?? (await access.treeOf(write.baseCommit)),
        tree: write.changes.map((change) => ({
          path: change.path,
          mode: modeOf(change.path) as '100644' | '100755',
          type: 'blob' as const,
          content: change.content,
        })),
      })
    ).data.sha;
    return tree;
  };
  const createCommit = async () => {
    commit ??= (
      await client.git.createCommit({
        ...repo,
        message: write.message,
        tree: await createTree(),
        parents: [write.baseCommit],
        // The committer is left out: GitHub then takes the author, as go-git did for Weave.
        author: { ...write.author },
      })
    ).data.sha;
    return commit;
  };

  /** The contents API's commit of the one file, on the branch's head; false when the branch moved meanwhile. */
  const commitFile = async (change: FileChange): Promise<boolean> => {
    try {
      await client.repos.createOrUpdateFileContents({
        ...repo,
        path: change.path,
        branch: write.branch,
        message: write.message,
        content: Buffer.from(change.content, 'utf8').toString('base64'),
        // GitHub refuses (409) when the file on the branch is no longer the base's: another call wrote it.
        sha: change.baseBlobId,
        author: { ...write.author },
        // Unlike a commit made through the git API, the committer would otherwise be the token's user.
        committer: { ...write.author },
      });
      return true;
    } catch (error) {
      if (isRequestError(error) && (error.status === 409 || (error.status === 404 && /branch/i.test(error.message)))) {
        return false;
      }
      throw error;
    }
  };

  for (let round = 0; round < ROUNDS; round++) {
    const head = await access.branchHead(write.branch);
    if (head === undefined) {
      if (oneFile) {
        // The branch made on the base, then the file committed on it.
        if (!(await createRef(access, ref, write.baseCommit))) continue;
        if (await commitFile(oneFile)) return { way: 'file-commit', openPullRequests: [] };
        continue;
      }
      if (await createRef(access, ref, await createCommit())) return { way: 'tree-commit', openPullRequests: [] };
      continue;
    }
    const [headTree, open] = await Promise.all([access.treeOf(head), openPullRequestsFrom(client, repo, write.branch)]);
    if (headTree === wanted) return { way: 'unchanged', openPullRequests: open };
    if (oneFile && open.length === 0) {
      if (head !== write.baseCommit && !(await moveRef(access, ref, write.baseCommit))) continue;
      if (await commitFile(oneFile)) return { way: 'file-commit', openPullRequests: open };
      continue;
    }
    if (headTree === (await createTree())) return { way: 'unchanged', openPullRequests: open };
    if (await moveRef(access, ref, await createCommit())) return { way: 'tree-commit', openPullRequests: open };
  }
  throw new PromotionError(
    'ConcurrentChange',
    `the branch ${write.branch} in ${access.webUrl} kept changing during the promotion`,
  );
}

/** The one change the contents API can write as the branch's commit, if the promotion is that. */
function fileCommitCandidate(changes: readonly FileChange[], modeOf: (path: string) => string): FileChange | undefined {
  if (changes.length !== 1) return undefined;
  const [change] = changes;
  // The contents API says nothing of a file's mode: only a plain file is written through it.
  if (!change || modeOf(change.path) !== '100644') return undefined;
  return Buffer.byteLength(change.content, 'utf8') <= MAX_FILE_COMMIT_BYTES ? change : undefined;
}

/** Creates the ref at `sha`; false when it exists already (made meanwhile by a concurrent call). */
async function createRef(access: GitHubBranchAccess, ref: string, sha: string): Promise<boolean> {
  try {
    await access.client.git.createRef({ ...access.repo, ref: `refs/${ref}`, sha });
    return true;
  } catch (error) {
    if (isValidationError(error, /Reference already exists/i)) return false;
    throw error;
  }
}

/** Force-moves the ref to `sha`; false when it no longer exists (deleted meanwhile). */
async function moveRef(access: GitHubBranchAccess, ref: string, sha: string): Promise<boolean> {
  try {
    await access.client.git.updateRef({ ...access.repo, ref, sha, force: true });
    return true;
  } catch (error) {
    if (isValidationError(error, /Reference does not exist/i)) return false;
    throw error;
  }
}
