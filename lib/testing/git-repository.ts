// git's object model for the fake Git hosts (fake-github.ts, fake-gitlab.ts, …): blobs, trees and commits get the
// ids git computes (`sha1("blob <len>\0…")`, tree entries in git's order and binary format, commit objects with
// tree/parent/author/committer/message), and refs point at commits. One model, so every fake host agrees with git
// and with each other on ids and contents.
import { createHash } from 'node:crypto';

/** A tree entry mode as the API shows it. */
export type GitMode = '100644' | '100755' | '120000' | '160000' | '040000';
export type GitObjectType = 'blob' | 'tree' | 'commit';

export interface GitTreeEntry {
  name: string;
  mode: GitMode;
  type: GitObjectType;
  sha: string;
}

export interface GitSignature {
  name: string;
  email: string;
  /** ISO 8601, whole seconds, UTC (`2024-05-01T12:00:00Z`). */
  date: string;
}

export interface GitCommit {
  tree: string;
  parents: string[];
  author: GitSignature;
  committer: GitSignature;
  message: string;
}

export type GitObject =
  { type: 'blob'; content: Buffer } | { type: 'tree'; entries: GitTreeEntry[] } | ({ type: 'commit' } & GitCommit);

function hashObject(type: GitObjectType, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/** git's blob id: `sha1("blob <length>\0<content>")`. */
export function gitBlobSha(content: Buffer | string): string {
  return hashObject('blob', typeof content === 'string' ? Buffer.from(content) : content);
}

/** Entries in git's order: by name bytes, a tree's name compared as if it ended with "/". */
export function sortTreeEntries(entries: readonly GitTreeEntry[]): GitTreeEntry[] {
  const key = (entry: GitTreeEntry) => Buffer.from(entry.type === 'tree' ? `${entry.name}/` : entry.name);
  return [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
}

/** The binary body of a tree object: `<mode> <name>\0<20 bytes of id>` per entry, in git's order. */
function treeBody(entries: readonly GitTreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of sortTreeEntries(entries)) {
    const mode = entry.mode === '040000' ? '40000' : entry.mode;
    parts.push(Buffer.from(`${mode} ${entry.name}\0`), Buffer.from(entry.sha, 'hex'));
  }
  return Buffer.concat(parts);
}

export function gitTreeSha(entries: readonly GitTreeEntry[]): string {
  return hashObject('tree', treeBody(entries));
}

function signatureLine(signature: GitSignature): string {
  const seconds = Math.floor(Date.parse(signature.date) / 1000);
  return `${signature.name} <${signature.email}> ${seconds} +0000`;
}

function commitBody(commit: GitCommit): Buffer {
  const lines = [`tree ${commit.tree}`, ...commit.parents.map((parent) => `parent ${parent}`)];
  lines.push(`author ${signatureLine(commit.author)}`, `committer ${signatureLine(commit.committer)}`);
  return Buffer.from(`${lines.join('\n')}\n\n${commit.message}`);
}

export function gitCommitSha(commit: GitCommit): string {
  return hashObject('commit', commitBody(commit));
}

export const GIT_MODES = new Set<string>(['100644', '100755', '120000', '160000', '040000']);

export function typeOfMode(mode: GitMode): GitObjectType {
  if (mode === '040000') return 'tree';
  if (mode === '160000') return 'commit';
  return 'blob';
}

/** Now, as git records it: whole seconds, UTC. */
/** Whether a path cannot be a file's in git: empty, absolute, a trailing `/`, or a `.`, `..`, `.git` or empty part. */
export function badGitPath(path: string): boolean {
  return path.split('/').some((part) => part === '' || part === '.' || part === '..' || part === '.git');
}

/** Whether a ref name is one git takes: `refs/<kind>/<name>`, with no empty or `..` part. */
export function validRefName(ref: string): boolean {
  return /^refs\/[^/]+\/.+/.test(ref) && !ref.split('/').some((part) => part === '' || part === '..');
}

export function gitNow(): string {
  return gitTime(Date.now());
}

/** A time as git and GitHub write it: to the second, `2024-05-01T12:00:00Z`. */
export function gitTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** A leaf of a flattened tree: a file, a symlink or a submodule. */
export interface FlatEntry {
  mode: GitMode;
  sha: string;
}

/** A path whose entry differs between two sets of files: `old` absent when added, `now` absent when deleted. */
export interface FileChange {
  path: string;
  old?: FlatEntry;
  now?: FlatEntry;
}

/** The paths whose entry (blob or mode) differs between two sets of files, in path order. */
export function fileChanges(
  before: ReadonlyMap<string, FlatEntry>,
  after: ReadonlyMap<string, FlatEntry>,
): FileChange[] {
  const changes: FileChange[] = [];
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(path);
    const now = after.get(path);
    if (old?.sha !== now?.sha || old?.mode !== now?.mode)
      changes.push({ path, ...(old && { old }), ...(now && { now }) });
  }
  return changes;
}

/** A change, or a move: a deleted file whose exact content was added elsewhere, as git's rename detection finds it. */
export type FileChangeOrMove = FileChange & { movedFrom?: { path: string; entry: FlatEntry } };

/** `changes` with each move in one entry (at its new path, `movedFrom` its old one), in path order. */
export function withMoves(changes: readonly FileChange[]): FileChangeOrMove[] {
  const sources = new Map<string, { path: string; entry: FlatEntry }>();
  const moved = new Set<string>();
  for (const { path, old, now } of changes) {
    if (old) continue;
    const source = changes.find((other) => !other.now && other.old?.sha === now?.sha && !moved.has(other.path));
    if (!source?.old) continue;
    moved.add(source.path);
    sources.set(path, { path: source.path, entry: source.old });
  }
  return changes
    .filter(({ path }) => !moved.has(path))
    .map((change) => ({ ...change, ...(sources.has(change.path) && { movedFrom: sources.get(change.path) }) }));
}

/** A path of a tree that is both a file and a directory in one request. */
export class TreePathConflict extends Error {
  override name = 'TreePathConflict';

  constructor(readonly path: string) {
    super(`${path} is a file`);
  }
}

/**
 * One repository's objects and refs. Each fake host keeps its own state (pull requests, ids) beside it and maps its
 * API onto these operations.
 */
export class GitRepository {
  readonly objects = new Map<string, GitObject>();
  readonly refs = new Map<string, string>();

  constructor(readonly defaultBranch: string) {}

  putBlob(content: Buffer): string {
    const sha = gitBlobSha(content);
    if (!this.objects.has(sha)) this.objects.set(sha, { type: 'blob', content });
    return sha;
  }

  putTree(entries: readonly GitTreeEntry[]): string {
    const sorted = sortTreeEntries(entries);
    const sha = gitTreeSha(sorted);
    if (!this.objects.has(sha)) this.objects.set(sha, { type: 'tree', entries: sorted });
    return sha;
  }

  putCommit(commit: GitCommit): string {
    const sha = gitCommitSha(commit);
    if (!this.objects.has(sha)) this.objects.set(sha, { type: 'commit', ...structuredClone(commit) });
    return sha;
  }

  blob(sha: string): Buffer | undefined {
    const object = this.objects.get(sha);
    return object?.type === 'blob' ? object.content : undefined;
  }

  tree(sha: string): GitTreeEntry[] | undefined {
    const object = this.objects.get(sha);
    return object?.type === 'tree' ? object.entries : undefined;
  }

  commit(sha: string): GitCommit | undefined {
    const object = this.objects.get(sha);
    if (object?.type !== 'commit') return undefined;
    const { tree, parents, author, committer, message } = object;
    return { tree, parents, author, committer, message };
  }

  /** A branch name, `heads/x`, `refs/heads/x`, a tag, or a commit id → the commit id. */
  resolveCommit(ref: string): string | undefined {
    for (const candidate of [ref, `refs/${ref}`, `refs/heads/${ref}`, `refs/tags/${ref}`]) {
      const sha = this.refs.get(candidate);
      if (sha) return sha;
    }
    return this.commit(ref) ? ref : undefined;
  }

  /** The files (and submodules) under a tree, by path. */
  flatten(treeSha: string, prefix = '', into = new Map<string, FlatEntry>()): Map<string, FlatEntry> {
    for (const entry of this.tree(treeSha) ?? []) {
      const path = `${prefix}${entry.name}`;
      if (entry.type === 'tree') this.flatten(entry.sha, `${path}/`, into);
      else into.set(path, { mode: entry.mode, sha: entry.sha });
    }
    return into;
  }

  /** Builds (and stores) the trees for a set of files; returns the root tree's id. */
  buildTree(files: ReadonlyMap<string, FlatEntry>): string {
    const leaves = new Map<string, FlatEntry>();
    const directories = new Map<string, Map<string, FlatEntry>>();
    for (const [path, entry] of files) {
      const slash = path.indexOf('/');
      if (slash < 0) {
        leaves.set(path, entry);
        continue;
      }
      const directory = path.slice(0, slash);
      let children = directories.get(directory);
      if (!children) directories.set(directory, (children = new Map<string, FlatEntry>()));
      children.set(path.slice(slash + 1), entry);
    }
    const entries: GitTreeEntry[] = [];
    for (const [name, entry] of leaves) {
      if (directories.has(name)) throw new TreePathConflict(name);
      entries.push({ name, mode: entry.mode, type: typeOfMode(entry.mode), sha: entry.sha });
    }
    for (const [name, children] of directories) {
      entries.push({ name, mode: '040000', type: 'tree', sha: this.buildTree(children) });
    }
    return this.putTree(entries);
  }

  /** Whether `ancestor` is `descendant` or one of its ancestors. */
  isAncestor(ancestor: string, descendant: string): boolean {
    return this.reachable(descendant).has(ancestor);
  }

  /** The nearest commit of `b`'s history (breadth first) that `a` also has. */
  mergeBase(a: string, b: string): string | undefined {
    const ofA = this.reachable(a);
    const seen = new Set<string>();
    const queue = [b];
    while (queue.length > 0) {
      const sha = queue.shift() as string;
      if (ofA.has(sha)) return sha;
      if (seen.has(sha)) continue;
      seen.add(sha);
      queue.push(...(this.commit(sha)?.parents ?? []));
    }
    return undefined;
  }

  /** The refs whose name starts with `prefix`, in name order, with their commits. */
  refsUnder(prefix: string): [ref: string, sha: string][] {
    return [...this.refs].filter(([ref]) => ref.startsWith(prefix)).sort(([a], [b]) => a.localeCompare(b));
  }

  /** The branches in name order, with their commits. */
  branches(): [branch: string, sha: string][] {
    return this.refsUnder('refs/heads/').map(([ref, sha]) => [ref.slice('refs/heads/'.length), sha]);
  }

  branchSha(branch: string): string | undefined {
    return this.refs.get(`refs/heads/${branch}`);
  }

  /** Every file at a ref (a branch, `heads/x`, or a commit id), by path; empty when the ref is unknown. */
  flatAt(ref: string | undefined): Map<string, FlatEntry> {
    const sha = ref === undefined ? undefined : this.resolveCommit(ref);
    const tree = sha ? this.commit(sha)?.tree : undefined;
    return tree ? this.flatten(tree) : new Map<string, FlatEntry>();
  }

  /** The entry at a path below a tree (`''`: the tree itself); undefined when a part is missing or not a directory. */
  lookup(treeSha: string, path: string): GitTreeEntry | undefined {
    let entry: GitTreeEntry | undefined = { name: '', mode: '040000', type: 'tree', sha: treeSha };
    for (const part of path === '' ? [] : path.split('/')) {
      entry = entry?.type === 'tree' ? this.tree(entry.sha)?.find((candidate) => candidate.name === part) : undefined;
    }
    return entry;
  }

  /** Visits the entries below a tree in git's order, depth first; `visit` says whether to descend into a directory. */
  walk(
    treeSha: string,
    prefix: string,
    visit: (path: string, entry: GitTreeEntry, depth: number) => boolean,
    depth = 0,
  ) {
    for (const entry of this.tree(treeSha) ?? []) {
      const path = `${prefix}${entry.name}`;
      if (visit(path, entry, depth) && entry.type === 'tree') this.walk(entry.sha, `${path}/`, visit, depth + 1);
    }
  }

  /** What a commit changed against its first parent, in path order. */
  changesOf(sha: string): FileChange[] {
    return fileChanges(this.flatAt(this.commit(sha)?.parents[0]), this.flatAt(sha));
  }

  /** Every commit reachable from `sha` (itself included). */
  reachable(sha: string | undefined): Set<string> {
    const seen = new Set<string>();
    const queue = sha ? [sha] : [];
    while (queue.length > 0) {
      const next = queue.pop() as string;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(...(this.commit(next)?.parents ?? []));
    }
    return seen;
  }

  /** Commits reachable from `head`, newest first (`git log`): by commit date, a child before its parents on a tie. */
  log(head: string): string[] {
    const order: string[] = [];
    const seen = new Set<string>();
    const queue: { sha: string; date: number; index: number }[] = [];
    const push = (sha: string) => {
      if (seen.has(sha)) return;
      seen.add(sha);
      queue.push({ sha, date: Date.parse(this.commit(sha)?.committer.date ?? '') || 0, index: seen.size });
    };
    push(head);
    while (queue.length > 0) {
      queue.sort((a, b) => b.date - a.date || a.index - b.index);
      const next = queue.shift() as { sha: string };
      order.push(next.sha);
      for (const parent of this.commit(next.sha)?.parents ?? []) push(parent);
    }
    return order;
  }

  /** The last commit that changed `path`, following first parents from `sha` (`git log -1 --first-parent -- path`). */
  lastChange(sha: string, path: string): string {
    let current = sha;
    for (let parent = this.commit(current)?.parents[0]; parent; parent = this.commit(current)?.parents[0]) {
      if (this.flatAt(current).get(path)?.sha !== this.flatAt(parent).get(path)?.sha) return current;
      current = parent;
    }
    return current;
  }

  /** How many commits `head` has that `base` does not (`git rev-list --count base..head`). */
  commitsAhead(head: string, base: string | undefined): number {
    const excluded = this.reachable(base);
    return [...this.reachable(head)].filter((sha) => !excluded.has(sha)).length;
  }

  /**
   * A merge commit of `source` into `target` (parents target, source): the source's changes since the merge base
   * applied to the target's files, the source winning any conflict. Stored and returned; no ref moves.
   */
  mergeCommit(target: string, source: string, signature: { name: string; email: string }, message: string): string {
    const merged = this.flatAt(target);
    for (const { path, now } of fileChanges(this.flatAt(this.mergeBase(target, source)), this.flatAt(source))) {
      if (now) merged.set(path, now);
      else merged.delete(path);
    }
    const stamped = { ...signature, date: gitNow() };
    const tree = this.buildTree(merged);
    return this.putCommit({ tree, parents: [target, source], author: stamped, committer: stamped, message });
  }

  /**
   * A commit of file changes on `parent` (a string sets a file's content, keeping its mode; null deletes it), stored
   * and returned; no ref moves.
   */
  commitChanges(
    parent: string | undefined,
    files: Readonly<Record<string, string | Buffer | null>>,
    signature: { name: string; email: string },
    message: string,
    committer: { name: string; email: string } = signature,
  ): string {
    const flat = parent ? this.flatten(this.commit(parent)?.tree ?? '') : new Map<string, FlatEntry>();
    for (const [path, content] of Object.entries(files)) {
      if (content === null) flat.delete(path);
      else flat.set(path, { mode: flat.get(path)?.mode ?? '100644', sha: this.putBlob(Buffer.from(content)) });
    }
    const date = gitNow();
    return this.putCommit({
      tree: this.buildTree(flat),
      parents: parent ? [parent] : [],
      author: { ...signature, date },
      committer: { ...committer, date },
      message,
    });
  }
}
