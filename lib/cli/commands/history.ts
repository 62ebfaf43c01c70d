// pipelinectl history: the audit trail (approvals, promotions, retries, commits applied from Git), newest first.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { HISTORY_ENTRY_TYPES, type HistoryEntryType } from '../operations/history.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey, parseSince } from '../flags.js';
import { printJson, printLines, printStderr } from '../output.js';

const DEFAULT_LIMIT = 100;

const MAX_LIMIT = 10_000;

interface HistoryFlags {
  env?: string;
  since?: string;
  type?: HistoryEntryType;
  limit: number;
  output: 'table' | 'json';
}

function limitOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return n;
}

export function register(program: Command): void {
  const command = program
    .command('history')
    .summary('The audit trail: approvals, promotions and retries, newest first')
    .argument('[pipeline]', 'NAMESPACE/NAME of one pipeline (default: every pipeline)')
    .description(
      'Show the audit trail, newest first across the pipelines shown: every approval request, approval (with who ' +
        'approved, whether by pipelinectl approve or the approval webhook), promotion started, succeeded or ' +
        'failed, and retry; and, when no pipeline is named, each commit a ConfigSource applied (config-applied, ' +
        'shown as configsource/NAMESPACE/NAME, with the objects it created, changed and pruned in -o json). Each ' +
        'entry has its time, pipeline, environment, type, revision, actor and message. ' +
        'At most --limit entries are shown (the last line says when there are more); the trail is read only as ' +
        'far as needed, so a long one stays fast. Entries are kept for the retention period of the store.',
    )
    .option('--env <env>', 'only entries about this environment')
    .option('--since <when>', 'only entries since then: a duration back from now (30m, 24h, 7d) or a date (2026-11-01)')
    .addOption(new Option('--type <type>', 'only entries of this type').choices(HISTORY_ENTRY_TYPES))
    .addOption(new Option('--limit <n>', 'show at most this many entries').default(DEFAULT_LIMIT).argParser(limitOf))
    .addOption(outputOption(['table', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl history\n  pipelinectl history flux-system/podinfo --env prod --since 7d\n' +
        '  pipelinectl history --type config-applied\n' +
        '  pipelinectl history --type approved -o json --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (name: string | undefined, options: HistoryFlags) => {
    const pipeline = name === undefined ? undefined : parseObjectKey(name, 'the pipeline');
    const now = new Date();
    const since = options.since === undefined ? undefined : parseSince(options.since, '--since', now);
    const { historyJson, historyTable, readHistoryWithConfigSources } = await import('../operations/history.js');
    await withBackend(command, async (backend) => {
      const query = { pipeline, env: options.env, type: options.type, since, limit: options.limit };
      const history = await readHistoryWithConfigSources(backend, query);
      if (options.output === 'json') return printJson(historyJson(history));
      if (history.entries.length === 0) return printStderr(`no audit entries match in ${backend.description}`);
      printLines(historyTable(history, options.limit, now));
    });
  });
}
