// `npm run bench`: every benchmark, one after the other in one process run, printed as one Markdown table headed by
// the date and the machine. `npm run bench -- --write-results` also replaces the results block in docs/benchmarks.md
// (between the `bench:results` markers), so that page always shows a run's figures together with where they came
// from; `--write-readme` is the same flag under the name it had when the results were in the README.
// `--only <name,…>` runs some of them (the names are the keys of BENCHES). A benchmark whose premise breaks, or that
// misses a goal, fails the run; the others still run and every figure measured is printed, but nothing is written.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import { benchCliStartup } from './cli-startup.js';
import { benchColdStart } from './cold-start.js';
import { benchConfigSources } from './config-sources.js';
import { benchCostPerEvent } from './cost-per-event.js';
import { benchEndToEndLatency } from './end-to-end-latency.js';
import { benchFleetScaling } from './fleet-scaling.js';
import { benchGitHostPromotions } from './git-host-promotions.js';
import { benchGitHubPromotion } from './github-promotion.js';
import { benchLeafClusterConnections } from './leaf-cluster-connections.js';
import { benchLeafClusterLoad } from './leaf-cluster-load.js';
import { benchMarkers } from './markers.js';
import { benchPipelineSets } from './pipeline-sets.js';
import { benchReceiver } from './receiver.js';
import { machineLine, markdownTable, type Bench, type BenchSection } from './report.js';
import { errorMessage } from '../lib/util/error-message.js';

const BENCHES: Readonly<Record<string, Bench>> = {
  receiver: benchReceiver,
  'cold-start': benchColdStart,
  'leaf-cluster-load': benchLeafClusterLoad,
  'fleet-scaling': benchFleetScaling,
  'leaf-cluster-connections': benchLeafClusterConnections,
  'cost-per-event': benchCostPerEvent,
  'github-promotion': benchGitHubPromotion,
  'git-host-promotions': benchGitHostPromotions,
  'end-to-end-latency': benchEndToEndLatency,
  'cli-startup': benchCliStartup,
  markers: benchMarkers,
  'config-sources': benchConfigSources,
  'pipeline-sets': benchPipelineSets,
};

const RESULTS_PAGE = new URL('../docs/benchmarks.md', import.meta.url);
const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

function selected(only: string | undefined): [string, Bench][] {
  const names = only ? only.split(',').map((name) => name.trim()) : Object.keys(BENCHES);
  return names.map((name) => {
    const bench = BENCHES[name];
    if (!bench) throw new Error(`--only: no benchmark "${name}" (known: ${Object.keys(BENCHES).join(', ')})`);
    return [name, bench];
  });
}

async function writeResults(block: string): Promise<void> {
  const text = await readFile(RESULTS_PAGE, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${START} … ${END} block to replace`);
  const updated = `${text.slice(0, start + START.length)}\n${block}\n${text.slice(end)}`;
  // Formatted as `npm run format` would, so that the page stays clean for `npm test`'s format check.
  const filepath = fileURLToPath(RESULTS_PAGE);
  const options = (await prettier.resolveConfig(filepath)) ?? {};
  await writeFile(RESULTS_PAGE, await prettier.format(updated, { ...options, filepath }));
}

/** What a run measured, as the page shows it: the machine and the hour, then the table. */
function measuredBlock(startedAt: Date, sections: readonly BenchSection[]): string {
  return `Measured ${machineLine(startedAt)}.\n\n${markdownTable(sections)}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      'write-results': { type: 'boolean', default: false },
      'write-readme': { type: 'boolean', default: false },
    },
  });
  const startedAt = new Date();
  const sections: BenchSection[] = [];
  /** What failed the run: a benchmark whose premise broke (it measured nothing to trust), or a goal it missed. */
  const failures: string[] = [];
  for (const [name, bench] of selected(values.only)) {
    const began = performance.now();
    console.error(`running ${name} …`);
    try {
      const section = await bench();
      sections.push(section);
      failures.push(...(section.unmet ?? []).map((goal) => `${name}: goal not met: ${goal}`));
    } catch (error) {
      // The others still run: one broken benchmark does not take the figures of the rest with it.
      console.error(error);
      failures.push(`${name}: failed: ${errorMessage(error)}`);
      continue;
    }
    console.error(`${name} done in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  }
  const block = measuredBlock(startedAt, sections);
  console.log(block);
  if (failures.length > 0) {
    // Printed, never written: the page's figures come from one whole run that met its goals.
    console.error(`\n${failures.length} failure(s), docs/benchmarks.md left as it was:\n${failures.join('\n')}`);
    process.exitCode = 1;
    return;
  }
  if (values['write-results'] || values['write-readme']) {
    await writeResults(block);
    console.error('docs/benchmarks.md updated');
  }
}

await main();
