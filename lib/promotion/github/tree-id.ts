// git's id of a tree, computed here from GitHub's recursive listing of the base tree with some blobs replaced: the id
// GitHub gives the tree the promotion commit needs. Comparing it with the branch head's tree tells whether the branch
// already holds the change without writing a tree first (a repeated or resumed promotion then writes nothing).
//
// A tree object is `tree <length>\0` then, per entry in git's order (names as bytes, a subtree's name compared as if
// it ended with "/"), `<mode> <name>\0<20-byte id>`; a subtree's mode is written `40000` (GitHub lists `040000`).
import { createHash } from 'node:crypto';

/** One entry of GitHub's recursive tree listing (`GET /git/trees/{sha}?recursive=1`). */
export interface ListedTreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
}

/** A file whose blob is replaced: its path, its mode and the id of its new content. */
export interface ReplacedBlob {
  path: string;
  mode: string;
  blobId: string;
}

interface DirectoryEntry {
  mode: string;
  type: ListedTreeEntry['type'];
  sha: string;
}

/**
 * The id of the tree listed in `entries` (the whole listing, never a truncated one) with `replaced` set; undefined
 * when nothing is replaced or a replaced path is not a file of the listing (the caller then writes the tree and lets
 * GitHub say).
 */
export function treeIdAfter(
  entries: readonly ListedTreeEntry[],
  replaced: readonly ReplacedBlob[],
): string | undefined {
  const directories = new Map<string, Map<string, DirectoryEntry>>([['', new Map()]]);
  for (const entry of entries) {
    const { parent, name } = split(entry.path);
    let directory = directories.get(parent);
    if (!directory) {
      directory = new Map();
      directories.set(parent, directory);
    }
    directory.set(name, { mode: entry.mode, type: entry.type, sha: entry.sha });
    if (entry.type === 'tree' && !directories.has(entry.path)) directories.set(entry.path, new Map());
  }
  const changed = new Set<string>();
  for (const blob of replaced) {
    const { parent, name } = split(blob.path);
    const existing = directories.get(parent)?.get(name);
    if (existing?.type !== 'blob') return undefined;
    directories.get(parent)?.set(name, { mode: blob.mode, type: 'blob', sha: blob.blobId });
    for (let directory = parent; ; directory = split(directory).parent) {
      changed.add(directory);
      if (directory === '') break;
    }
  }
  // Deepest first, so a directory's id is known before its parent's entries are written.
  const order = [...changed].sort((a, b) => depth(b) - depth(a));
  let root: string | undefined;
  for (const path of order) {
    const id = treeId(directories.get(path) ?? new Map());
    if (path === '') {
      root = id;
      continue;
    }
    const { parent, name } = split(path);
    directories.get(parent)?.set(name, { mode: '040000', type: 'tree', sha: id });
  }
  return root;
}

function treeId(entries: ReadonlyMap<string, DirectoryEntry>): string {
  const sortKey = (name: string, entry: DirectoryEntry) => Buffer.from(entry.type === 'tree' ? `${name}/` : name);
  const sorted = [...entries].sort(([a, x], [b, y]) => Buffer.compare(sortKey(a, x), sortKey(b, y)));
  const parts: Buffer[] = [];
  for (const [name, entry] of sorted) {
    const mode = entry.type === 'tree' ? '40000' : entry.mode;
    parts.push(Buffer.from(`${mode} ${name}\0`), Buffer.from(entry.sha, 'hex'));
  }
  const body = Buffer.concat(parts);
  return createHash('sha1').update(`tree ${body.length}\0`).update(body).digest('hex');
}

function split(path: string): { parent: string; name: string } {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? { parent: '', name: path } : { parent: path.slice(0, slash), name: path.slice(slash + 1) };
}

function depth(path: string): number {
  return path === '' ? 0 : path.split('/').length;
}
