// The bounds on what one read of a leaf cluster may take in, so that no API server (broken, or in hostile hands) can
// make the reader hold unbounded memory: a reader shared by every pipeline must not be stopped by one cluster. Past a
// bound, the read ends with a ClusterAccessError of kind `too-large` on that cluster alone (docs/flux-status.md,
// "Reading app objects from a leaf cluster").

/**
 * Pages of one LIST (limit/continue). A LIST of 20,000 objects takes 40 pages of 500; an API server may answer fewer
 * per page than asked, so there is room, but one that keeps handing out `continue` tokens is stopped here.
 */
export const MAX_LIST_PAGES = 100;

/**
 * Objects of one (cluster, kind) read: every page of its LIST, or of its LISTs per namespace together. A fleet's
 * cluster holds tens to a few thousands HelmReleases or Kustomizations; ten times that is still well under this.
 */
export const MAX_LIST_ITEMS = 20_000;

/** Bytes of the body of one LIST page (500 objects of 32 KiB), decompressed. */
export const MAX_LIST_PAGE_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of all the pages of one (cluster, kind) read together, decompressed: the objects a read holds at once. 20,000
 * objects of 3 KiB, the size of a HelmRelease with its status and history.
 */
export const MAX_LIST_BYTES = 64 * 1024 * 1024;

/**
 * Bytes of one object read by a GET, decompressed. etcd refuses a write over 1.5 MiB (its default
 * `--max-request-bytes`), so no object a real API server stores is over this.
 */
export const MAX_OBJECT_BYTES = 2 * 1024 * 1024;

/** Bytes of any other answer (discovery documents, error bodies): an APIGroupList of a large cluster is ~100 KiB. */
export const MAX_OTHER_ANSWER_BYTES = 4 * 1024 * 1024;
