// What the markers of a base branch say beyond "this file holds the environment's marker": the markers a missing one
// was most likely meant to be (a near miss: `…:production` for `…:prod`, a pipeline name one letter off, the pipeline
// under another namespace), and the files that hold the markers of two environments of one pipeline, which a
// promotion to either would edit (most often a file copied from another environment with one marker left behind), and
// the files whose path names another environment of the pipeline (`apps/prod/…` holding qa's marker).
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

/** A file holding the environment's marker whose path names another environment of the pipeline (and not its own). */
export interface MisplacedMarkerFile {
  path: string;
  /** The other environment its path names. */
  environment: string;
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
  // Another environment's marker in a file whose path names this environment: a file copied with its marker unchanged.
  const copied: MarkerNearMiss[] = [];
  for (const [found, paths] of scan) {
    if (!own.has(found) || found === marker || wanted === undefined) continue;
    const here = paths.filter((path) => pathNames(path, wanted.environment));
    if (here.length > 0) copied.push({ marker: found, files: here });
  }
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
  const named = near.map((found) => ({ marker: found, files: [...(scan.get(found) ?? [])] }));
  return [...copied, ...named].slice(0, NEAR_MISSES);
}

/**
 * The files among `files` (those holding the marker of `environment`) whose path names another environment of the
 * pipeline and not `environment`: `apps/prod/checkout.yaml` holding qa's marker.
 */
export function filesOfOtherEnvironments(
  environment: string,
  files: readonly string[],
  environments: readonly { name: string }[],
): MisplacedMarkerFile[] {
  return files.flatMap((path) => {
    if (pathNames(path, environment)) return [];
    const other = environments.find((env) => env.name !== environment && pathNames(path, env.name));
    return other ? [{ path, environment: other.name }] : [];
  });
}

/**
 * Whether a path names an environment: one of its directories or its file name (without `.yaml`) is the name, or has
 * it as a word between `-`, `_` or `.` (`clusters/prod-eu/`, `values.prod.yaml`), ignoring case.
 */
function pathNames(path: string, environment: string): boolean {
  const name = environment.toLowerCase();
  return path
    .toLowerCase()
    .replace(/\.ya?ml$/, '')
    .split('/')
    .some((part) => part === name || part.split(/[-_.]/).includes(name));
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
