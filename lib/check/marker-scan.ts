// Which files of a commit hold which `$promotion` markers: the promoter's scan (lib/promotion/pull-request/promoter.ts)
// without its cache or its edit. The same files are looked at (regular `*.yaml`/`*.yml` files), each distinct blob is
// read once, and the markers are those `markersIn` finds, so a marker listed here is one a promotion would set.
import { markersInSliced } from '../promotion/markers.js';
import type { HostRepository, RepositoryFile } from '../promotion/pull-request/host.js';
import { mapLimit } from '../util/map-limit.js';

const YAML_FILE = /\.ya?ml$/;

/** Marker (`ns:name:env`) → the paths of the files holding it, in the order the host listed them. */
export type MarkerFiles = ReadonlyMap<string, readonly string[]>;

export async function scanMarkers(
  repository: Pick<HostRepository, 'listFiles' | 'readFile'>,
  commit: string,
  concurrency: number,
): Promise<MarkerFiles> {
  const manifests = (await repository.listFiles(commit)).filter((file) => YAML_FILE.test(file.path));
  const byBlob = new Map<string, RepositoryFile>();
  for (const file of manifests) if (!byBlob.has(file.blobId)) byBlob.set(file.blobId, file);
  const distinct = [...byBlob.values()];
  const markers = await mapLimit(distinct, concurrency, async (file) =>
    markersInSliced(await repository.readFile(file, commit)),
  );
  const markersOf = new Map(distinct.map((file, i) => [file.blobId, markers[i] ?? []]));
  const files = new Map<string, string[]>();
  for (const file of manifests) {
    for (const marker of markersOf.get(file.blobId) ?? []) {
      const paths = files.get(marker) ?? [];
      paths.push(file.path);
      files.set(marker, paths);
    }
  }
  return files;
}
