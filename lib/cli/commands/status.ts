// pipelinectl status: every pipeline (or one), environment by environment, with the decision for each.
import { Option, type Command } from 'commander';
import { addBackendOptions, backendFlags, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines, printStderr, printYaml } from '../output.js';

interface StatusFlags {
  output: 'table' | 'json' | 'yaml';
  allTargets?: boolean;
}

export function register(program: Command): void {
  const command = program
    .command('status')
    .summary('Every pipeline, environment by environment, with the decision for each')
    .argument('[pipeline]', 'NAMESPACE/NAME of one pipeline (default: every pipeline)')
    .description(
      'Show each pipeline environment by environment: every target (cluster and namespace) with the revision it ' +
        'runs, its phase (Ready, Progressing, Failed, Suspended, Absent, Unreadable; Unobserved before the first ' +
        'read) and when it was last seen; the decision for the environment (state, reason) with its explanation, made now from the stored state as the verifier would make it; ' +
        'the revision waiting for approval, with the command that approves it; and the promotions made, with their ' +
        'pull request or error. ' +
        // The numbers are SUMMARIZED_ABOVE_TARGETS and HOLDING_BACK_ROWS of operations/status.ts, written out so that
        // the help does not load the operation (test/cli/status-fleet.test.ts checks they agree).
        'An environment with more than 10 targets is shown in short: one row with its targets counted by phase, ' +
        'then the targets holding it back (at most 10); ' +
        '--all-targets shows every target, and -o json and -o yaml always list every target. When ConfigSources ' +
        'are stored, a last section shows each with the commit applied and whether its last sync succeeded (for a ' +
        'named pipeline, the source that applied it). Pipelines a PipelineSet generated come after the others, ' +
        'under a line naming their set.',
    )
    .addOption(outputOption(['table', 'json', 'yaml']))
    .addOption(new Option('--all-targets', 'one row per target, also in environments of more than 10 targets'))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl status\n  pipelinectl status flux-system/podinfo -o json\n' +
        '  pipelinectl status flux-system/podinfo --all-targets\n' +
        '  pipelinectl status --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (name: string | undefined, options: StatusFlags) => {
    const key = name === undefined ? undefined : parseObjectKey(name, 'the pipeline');
    const { readStatus, statusTable } = await import('../operations/status.js');
    const { configSourcesSection } = await import('../operations/config-sources.js');
    const { groupedBySet, setHeading } = await import('../operations/pipeline-sets.js');
    await withBackend(command, async (backend) => {
      const now = new Date();
      const { views, sources, json } = await readStatus(backend, key, now);
      if (options.output === 'json') return printJson(json);
      if (options.output === 'yaml') return printYaml(json);
      if (views.length === 0) printStderr(`no pipelines stored in ${backend.description}`);
      const table = { allTargets: options.allTargets === true, approveFlags: backendFlags(command) };
      // A set's generated pipelines follow a line naming the set, after the hand-written ones.
      const sections = [
        ...groupedBySet(views).flatMap(({ set, items }) =>
          items.map((view, i) => {
            const lines = statusTable(view, now, table);
            if (!set || i > 0) return lines;
            return [setHeading(set, items.length), '', ...lines];
          }),
        ),
        ...(sources.length > 0 ? [configSourcesSection(sources)] : []),
      ];
      printLines(sections.flatMap((lines, i) => [...(i > 0 ? [''] : []), ...lines]));
    });
  });
}
