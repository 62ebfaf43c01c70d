// pipelinectl's entry point: one commander program, one module per command (lib/cli/commands/*). Errors end as one
// clear line on stderr and a non-zero exit code; a stack trace is printed only with PIPELINECTL_DEBUG=1.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/problems.js';
import { CliError } from './errors.js';
import * as apply from './commands/apply.js';
import * as approve from './commands/approve.js';
import * as demo from './commands/demo.js';
import * as dlq from './commands/dlq.js';
import * as explain from './commands/explain.js';
import * as fluxConfig from './commands/flux-config.js';
import * as get from './commands/get.js';
import * as serve from './commands/serve.js';
import * as status from './commands/status.js';

export interface CommandModule {
  register(program: Command): void;
}

const COMMANDS: CommandModule[] = [serve, demo, apply, get, status, approve, explain, fluxConfig, dlq];

export function buildProgram(): Command {
  const program = new Command('pipelinectl')
    .description('Promote revisions through Flux pipelines: local mode, configuration, status and approvals.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const command of COMMANDS) command.register(program);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
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
