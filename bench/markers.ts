// What setting `$promotion` markers costs in a large manifest (lib/promotion/markers.ts): a 4 MiB YAML stream of
// HelmReleases (the largest file `apply` accepts, lib/config/limits.ts) with 1,000 chart versions marked for the
// promoted environment, rewritten to a new version. Wall time and the process's CPU time (user + system) of the
// rewrite as the promoter runs it (sliced: returning to the event loop between slices), against the same file with one
// marker (the cost does not grow with the markers), and the longest the event loop waited meanwhile: how long a
// request to `serve`'s receiver would wait at worst. Beside them, the scan for markers of the same file.
//
// Fails when its premise breaks: not every marked value written, or the sliced rewrite giving other bytes than the
// rewrite at once.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { markersInSliced, setMarkedValues, setMarkedValuesSliced } from '../lib/promotion/markers.js';
import { formatMs, formatNumber, formatRatio, runIfMain, type Bench, type BenchSection } from './report.js';

const FILE_BYTES = 4 * 1024 * 1024;
const MARKERS = 1000;
const MARKER = 'flux-system:podinfo:prod';
const VERSION = '6.0.1';

function helmRelease(index: number, marked: boolean): string {
  return `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app-${index}
  namespace: apps
  labels:
    team: platform
spec:
  interval: 10m
  chart:
    spec:
      chart: app-${index}
      version: "1.0.${index}"${marked ? ` # {"$promotion": "${MARKER}"}` : ''}
      sourceRef:
        kind: HelmRepository
        name: charts
  values:
    replicas: 3
    image:
      repository: ghcr.io/example/app-${index}
      tag: v1.0.${index}
`;
}

/** `bytes` of HelmReleases or a little more, `markers` of them marked, spread evenly. */
function largeManifest(bytes: number, markers: number): string {
  let count = 0;
  for (let length = 0; length < bytes; count++) length += helmRelease(count, false).length;
  const every = Math.max(1, Math.floor(count / markers));
  const documents: string[] = [];
  let marked = 0;
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const mark = marked < markers && i % every === 0;
    if (mark) marked++;
    const document = helmRelease(i, mark);
    documents.push(document);
    length += document.length;
  }
  return documents.join('');
}

interface Run<T> {
  result: T;
  wallMs: number;
  cpuMs: number;
  /** The longest the event loop waited to run a callback. */
  maxDelayMs: number;
}

async function measure<T>(work: () => Promise<T>): Promise<Run<T>> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const cpu = process.cpuUsage();
  const began = performance.now();
  const result = await work();
  const wallMs = performance.now() - began;
  const used = process.cpuUsage(cpu);
  delay.disable();
  return { result, wallMs, cpuMs: (used.user + used.system) / 1000, maxDelayMs: delay.max / 1e6 };
}

export const benchMarkers: Bench = async (): Promise<BenchSection> => {
  const many = largeManifest(FILE_BYTES, MARKERS);
  const one = largeManifest(FILE_BYTES, 1);
  const size = `${(many.length / 1024 / 1024).toFixed(1)} MiB`;
  const rewriteMany = await measure(() => setMarkedValuesSliced(many, MARKER, VERSION));
  if (rewriteMany.result.replaced !== MARKERS) {
    throw new Error(`${rewriteMany.result.replaced} of ${MARKERS} marked values written`);
  }
  if (rewriteMany.result.text !== setMarkedValues(many, MARKER, VERSION).text) {
    throw new Error('the sliced rewrite wrote other bytes than the rewrite at once');
  }
  const rewriteOne = await measure(() => setMarkedValuesSliced(one, MARKER, VERSION));
  const scan = await measure(() => markersInSliced(many));
  return {
    title: `Marker rewriting (${size} manifest)`,
    measurements: [
      {
        name: `set ${formatNumber(MARKERS)} marked values in ${size}`,
        value: `${formatMs(rewriteMany.wallMs)} (CPU ${formatMs(rewriteMany.cpuMs)})`,
        baseline: `1 marked value: ${formatMs(rewriteOne.wallMs)} (CPU ${formatMs(rewriteOne.cpuMs)})`,
        ratio: formatRatio(rewriteMany.cpuMs, rewriteOne.cpuMs),
        note: 'sliced, as the promoter runs it; every byte as the rewrite at once',
      },
      {
        name: `longest event-loop wait while setting ${formatNumber(MARKERS)} values`,
        value: formatMs(rewriteMany.maxDelayMs),
        note: `what a request to serve's receiver waits at worst meanwhile`,
      },
      {
        name: `scan ${size} for markers`,
        value: `${formatMs(scan.wallMs)} (CPU ${formatMs(scan.cpuMs)})`,
        note: `longest event-loop wait ${formatMs(scan.maxDelayMs)}`,
      },
    ],
  };
};

await runIfMain(import.meta.url, benchMarkers);
