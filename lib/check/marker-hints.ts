// What the markers of a base branch say beyond "this file holds the environment's marker": the markers a missing one
// was most likely meant to be (a near miss: `…:production` for `…:prod`, a pipeline name one letter off, the pipeline
// under another namespace), and the files that hold the markers of two environments of one pipeline, which a
// promotion to either would edit (most often a file copied from another environment with one marker left behind).
import { closestName } from '../util/closest-name.js';
import { markerFor, parseMarker } from '../promotion/markers.js';
import type { MarkerFiles } from './marker-scan.js';

/** How many near misses are named at most, nearest first. */
const NEAR_MISSES = 3;

/** A marker found in the base branch that the missing one was most likely meant to be, and the files holding it. */
export interface MarkerNearMiss {
  marker: string;
  files: string[];
}

/** A file holding the environment's marker and those of other environments of the same pipeline. */
export interface MixedMarkerFile {
  path: string;
  /** The other environments' markers (`ns:name:env`) the file holds. */
  markers: string[];
}

/**
 * The markers of the scan closest to `marker`, nearest first: a typo of it or one of them cut short (as the
 * "did you mean" hints judge it: `closestName`), or the same pipeline and environment under another namespace. The
 * markers of the pipeline's own environments are not near misses of each other: they are where they should be.
 */
export function nearMisses(
  marker: string,
  pipeline: { namespace: string; name: string; environments: readonly { name: string }[] },
  scan: MarkerFiles,
): MarkerNearMiss[] {
  const wanted = parseMarker(marker);
  const own = new Set(pipeline.environments.map((env) => markerFor(pipeline.namespace, pipeline.name, env.name)));
  const candidates = [...scan.keys()].filter((found) => !own.has(found));
  const near: string[] = [];
  let left = candidates;
  while (near.length < NEAR_MISSES) {
    const closest = closestName(marker, left);
    if (closest === undefined) break;
    near.push(closest);
    left = left.filter((found) => found !== closest);
  }
  for (const found of left) {
    const parts = parseMarker(found);
    const elsewhere =
      wanted !== undefined &&
      parts !== undefined &&
      parts.name === wanted.name &&
      parts.environment === wanted.environment;
    if (elsewhere && near.length < NEAR_MISSES) near.push(found);
  }
  return near.map((found) => ({ marker: found, files: [...(scan.get(found) ?? [])] }));
}

/** The files among `files` (those holding `marker`) that also hold a marker of another environment of its pipeline. */
export function filesMixingEnvironments(
  marker: string,
  files: readonly string[],
  scan: MarkerFiles,
): MixedMarkerFile[] {
  const wanted = parseMarker(marker);
  if (!wanted) return [];
  const others = new Map<string, string[]>();
  for (const [found, paths] of scan) {
    const parts = parseMarker(found);
    if (!parts || found === marker || parts.namespace !== wanted.namespace || parts.name !== wanted.name) continue;
    for (const path of paths) {
      if (!files.includes(path)) continue;
      const markers = others.get(path) ?? [];
      markers.push(found);
      others.set(path, markers);
    }
  }
  return files.flatMap((path) => {
    const markers = others.get(path);
    return markers ? [{ path, markers }] : [];
  });
}
