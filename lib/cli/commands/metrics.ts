// pipelinectl metrics: the DORA metrics of each pipeline (deployment frequency, lead time, change failure rate, time
// to restore) over a window, from the recorded audit trail.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_RETENTION_DAYS } from '../../store/index.js';
import { durationMs } from '../../util/duration.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines, printStderr } from '../output.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The audit trail's default retention: a longer window would count days with nothing kept. */
const MAX_WINDOW_MS = DEFAULT_RETENTION_DAYS * DAY_MS;
const MAX_FAILURE_WINDOW_MS = 7 * DAY_MS;

interface MetricsFlags {
  window: number;
  failureWindow: number;
  output: 'table' | 'json';
}

/** `30d`, `12h`, `1d12h`, `90m` → milliseconds, from `minMs` to `maxMs`. */
function spanParser(minMs: number, maxMs: number, examples: string, range: string) {
  return (text: string): number => {
    const days = /^(\d+)d(.*)$/.exec(text.trim());
    const rest = days ? (days[2] ?? '') : text.trim();
    const restMs = rest === '' && days ? 0 : durationMs(rest);
    if (restMs === undefined) throw new InvalidArgumentError(`must be a duration such as ${examples}`);
    const ms = Number(days?.[1] ?? 0) * DAY_MS + restMs;
    if (ms < minMs || ms > maxMs) throw new InvalidArgumentError(`must be from ${range}`);
    return ms;
  };
}

export function register(program: Command): void {
  const command = program
    .command('metrics')
    .summary('DORA metrics per pipeline: deployment frequency, lead time, change failure rate, time to restore')
    .argument('[pipeline]', 'NAMESPACE/NAME of one pipeline (default: every pipeline)')
    .description(
      'Show the DORA metrics of each pipeline over the last --window, computed from its audit trail. A deployment ' +
        'is an environment first seen with every target Ready on a revision it did not run before. Deployment ' +
        'frequency: deployments per day, per environment (with the promotions into it that succeeded). Lead time: ' +
        'from the first environment first seen passed on a revision to the last environment passed on it (median ' +
        'and p90). Change failure rate: the share of deployments that, within --failure-window, regressed (a target ' +
        'Failed on that revision) or were rolled back (a rollback started for that revision); another revision ' +
        'following is no failure. Deployments whose failure window is still open and nothing went wrong yet are ' +
        'pending and left out. Time to restore: from a regression to the environment passing again ' +
        `(median). Windows are bounded by the audit retention (${DEFAULT_RETENTION_DAYS} days).`,
    )
    .addOption(
      new Option('--window <span>', 'how far back to look: 30d, 7d, 12h (at most 90d)')
        .default(30 * DAY_MS, '30d')
        .argParser(spanParser(HOUR_MS, MAX_WINDOW_MS, '1h, 7d, 30d', `1h to ${DEFAULT_RETENTION_DAYS}d`)),
    )
    .addOption(
      new Option(
        '--failure-window <span>',
        'how long after a deployment a regression on it or its rollback makes it a failure',
      )
        .default(HOUR_MS, '1h')
        .argParser(spanParser(60_000, MAX_FAILURE_WINDOW_MS, '1m, 1h, 1d', '1m to 7d')),
    )
    .addOption(outputOption(['table', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl metrics\n  pipelinectl metrics flux-system/podinfo --window 7d --failure-window 2h\n' +
        '  pipelinectl metrics -o json --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (name: string | undefined, options: MetricsFlags) => {
    const pipeline = name === undefined ? undefined : parseObjectKey(name, 'the pipeline');
    const { metricsJson, metricsTable, readMetrics } = await import('../operations/metrics.js');
    await withBackend(command, async (backend) => {
      const query = { pipeline, windowMs: options.window, failureWindowMs: options.failureWindow, now: new Date() };
      const report = await readMetrics(backend, query);
      if (options.output === 'json') return printJson(metricsJson(report));
      if (report.pipelines.length === 0) return printStderr(`no pipelines stored in ${backend.description}`);
      printLines(report.pipelines.flatMap((view, i) => [...(i > 0 ? [''] : []), ...metricsTable(view, report)]));
    });
  });
}
