// pipelinectl's entry point: one commander program, one module per command (lib/cli/commands/*). Errors end as one
// clear line on stderr and a non-zero exit code; a stack trace is printed only with PIPELINECTL_DEBUG=1.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/problems.js';
import { CliError } from './errors.js';

export interface CommandModule {
  register(program: Command): void;
}

/**
 * Each command's module, in help order, loaded on demand: a run loads only the command it runs (every command for
 * the top-level help or an unknown command), so no command pays for another's dependencies at start-up.
 */
const COMMANDS: readonly (readonly [string, () => Promise<CommandModule>])[] = [
  ['serve', () => import('./commands/serve.js')],
  ['demo', () => import('./commands/demo.js')],
  ['apply', () => import('./commands/apply.js')],
  ['delete', () => import('./commands/delete.js')],
  ['get', () => import('./commands/get.js')],
  ['status', () => import('./commands/status.js')],
  ['approve', () => import('./commands/approve.js')],
  ['retry', () => import('./commands/retry.js')],
  ['explain', () => import('./commands/explain.js')],
  ['metrics', () => import('./commands/metrics.js')],
  ['history', () => import('./commands/history.js')],
  ['dashboard', () => import('./commands/dashboard.js')],
  ['check', () => import('./commands/check.js')],
  ['flux-config', () => import('./commands/flux-config.js')],
  ['dlq', () => import('./commands/dlq.js')],
  ['backup', () => import('./commands/backup.js')],
  ['restore', () => import('./commands/restore.js')],
];

/** The program with every command, or only `command` when it names one. */
export async function buildProgram(command?: string): Promise<Command> {
  const program = new Command('pipelinectl')
    .description('Promote revisions through Flux pipelines: local mode, configuration, status and approvals.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const only = COMMANDS.filter(([name]) => name === command);
  for (const [, load] of only.length > 0 ? only : COMMANDS) (await load()).register(program);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  // argv is [node, script, command, …]: the program has no options of its own.
  const program = await buildProgram(argv[2]);
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode; // commander already printed help or the error
    if (process.env.PIPELINECTL_DEBUG === '1') console.error(error);
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    if (error instanceof CliError) {
      console.error(`error: ${error.message}`);
      return error.exitCode;
    }
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
