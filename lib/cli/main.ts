// pipelinectl's entry point: one commander program, one module per command (lib/cli/commands/*). Errors end as one
// clear line on stderr and a non-zero exit code; a stack trace is printed only with PIPELINECTL_DEBUG=1.
import { existsSync, readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { Command, CommanderError, Help } from 'commander';
import { ConfigError } from '../config/problems.js';
import { redact } from '../logging/redaction.js';
import { CliError } from './errors.js';
import { printStderr } from './output.js';
import { currentTerminal, inTerminal, type Terminal } from './terminal.js';
import { errorMessage } from '../util/error-message.js';

export interface CommandModule {
  register(program: Command): void;
}

interface CommandEntry {
  readonly name: string;
  /** What follows the name in the top-level help, as the module declares it: `[options] <pipeline> <env>`. */
  readonly usage: string;
  /** The command's line in the top-level help: its module's summary (or description). */
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/**
 * Each command, in help order, with its line of the top-level help. A run loads the module of the command it runs
 * and no other, so no command pays for another's dependencies at start-up (`serve` and `demo` alone take over a
 * second to load); the top-level help, `--version` and an unknown command load none, and list the others by these
 * lines. test/package/cli-startup.test.ts fails when a line here differs from what its module declares.
 */
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'serve',
    usage: '[options]',
    summary: 'Run the local mode: the receiver, the verifier and the poller in one process, on a data directory',
    load: () => import('./commands/serve.js'),
  },
  {
    name: 'demo',
    usage: '[options]',
    summary:
      'Run the local mode against simulated clusters, Flux, GitHub (or GitLab) and CI: no cluster or Git host ' +
      'account needed',
    load: () => import('./commands/demo.js'),
  },
  {
    name: 'apply',
    usage: '[options]',
    summary: 'Validate a configuration against what is stored, then store it',
    load: () => import('./commands/apply.js'),
  },
  {
    name: 'validate',
    usage: '[options] [paths...]',
    summary: 'Check configuration files as a ConfigSource reads them, with no store and no cluster',
    load: () => import('./commands/validate.js'),
  },
  {
    name: 'delete',
    usage: '[options] <kind> <name>',
    summary: 'Delete a stored pipeline, cluster, config source or pipeline set',
    load: () => import('./commands/delete.js'),
  },
  {
    name: 'get',
    usage: '[options] <kind> [name]',
    summary: 'List the stored pipelines, clusters, config sources or pipeline sets',
    load: () => import('./commands/get.js'),
  },
  {
    name: 'status',
    usage: '[options] [pipeline]',
    summary: 'Every pipeline, environment by environment, with the decision for each',
    load: () => import('./commands/status.js'),
  },
  {
    name: 'approve',
    usage: '[options] <pipeline> <env>',
    summary: 'Approve the revision waiting in a manual environment',
    load: () => import('./commands/approve.js'),
  },
  {
    name: 'reject',
    usage: '[options] <pipeline> <env>',
    summary: 'Reject the revision waiting in a manual environment',
    load: () => import('./commands/reject.js'),
  },
  {
    name: 'retry',
    usage: '[options] <pipeline> <env>',
    summary: 'Retry a promotion that failed for good',
    load: () => import('./commands/retry.js'),
  },
  {
    name: 'freeze',
    usage: '[options] [pipeline]',
    summary: 'Stop promotions into a pipeline, or every pipeline, until unfrozen',
    load: () => import('./commands/freeze.js'),
  },
  {
    name: 'unfreeze',
    usage: '[options] [pipeline]',
    summary: 'Lift the stop switch of a pipeline, or the installation-wide one',
    load: () => import('./commands/unfreeze.js'),
  },
  {
    name: 'freezes',
    usage: '[options] [pipeline]',
    summary: 'List the stop switches in force',
    load: () => import('./commands/freezes.js'),
  },
  {
    name: 'explain',
    usage: '[options] <pipeline> [env]',
    summary: 'Why each environment of a pipeline is where it is',
    load: () => import('./commands/explain.js'),
  },
  {
    name: 'metrics',
    usage: '[options] [pipeline]',
    summary: 'DORA metrics per pipeline: deployment frequency, lead time, change failure rate, time to restore',
    load: () => import('./commands/metrics.js'),
  },
  {
    name: 'history',
    usage: '[options] [pipeline]',
    summary: 'The audit trail: approvals, promotions and retries, newest first',
    load: () => import('./commands/history.js'),
  },
  {
    name: 'dashboard',
    usage: '[options]',
    summary: 'Serve a live web dashboard of the fleet on 127.0.0.1',
    load: () => import('./commands/dashboard.js'),
  },
  {
    name: 'check',
    usage: '[options] [pipeline]',
    summary: 'Whether the promotions of a pipeline can work, before the first one',
    load: () => import('./commands/check.js'),
  },
  {
    name: 'flux-config',
    usage: '[options] [environment]',
    summary: "The YAML that makes a leaf cluster's Flux send its events, or pull an environment's input",
    load: () => import('./commands/flux-config.js'),
  },
  {
    name: 'dlq',
    usage: '',
    summary: "List or redrive the deployed stack's dead-letter queue (--aws)",
    load: () => import('./commands/dlq.js'),
  },
  {
    name: 'backup',
    usage: '[options]',
    summary: 'Back up the local data directory (store, master key, Secrets) to one file, also while serve runs',
    load: () => import('./commands/backup.js'),
  },
  {
    name: 'restore',
    usage: '[options]',
    summary: 'Make the local data directory from a backup file (all or nothing)',
    load: () => import('./commands/restore.js'),
  },
  {
    name: 'completion',
    usage: '<shell>',
    summary: 'Print the bash or zsh completion script of pipelinectl',
    load: () => import('./commands/completion.js'),
  },
];

/** The commands whose modules a run needs: the one it runs (or asks help for); every one for `completion`. */
export type CommandsToLoad = 'every' | readonly string[];

/** What to load for `args` (the arguments after `pipelinectl`). */
export function commandsToLoad(args: readonly string[]): CommandsToLoad {
  const [first, second] = args;
  // The completion script is made from the whole command tree, every option of every command.
  if (first === 'completion') return 'every';
  if (first === 'help' && second !== undefined) return [second];
  return first === undefined ? [] : [first];
}

/** The package's version, from the package.json nearest above this module: the checkout's or the installed one's. */
function packageVersion(): string {
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) {
      const manifest: unknown = JSON.parse(readFileSync(file, 'utf8'));
      const version = (manifest as { version?: unknown } | null)?.version;
      return typeof version === 'string' ? version : 'unknown';
    }
    if (new URL('../', dir).href === dir.href) return 'unknown';
  }
}

/** The program: the commands in `load` registered by their modules, every other one by its line of help only. */
export async function buildProgram(load: CommandsToLoad = 'every'): Promise<Command> {
  const program = new Command('pipelinectl')
    .description('Promote revisions through Flux pipelines: local mode, configuration, status and approvals.')
    .version(packageVersion(), '-V, --version', "print pipelinectl's version")
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({
      writeOut: (text) => void currentTerminal().stdout.write(text),
      writeErr: (text) => void currentTerminal().stderr.write(text),
    })
    .exitOverride();
  const listedOnly = new Map<Command, string>();
  for (const entry of COMMANDS) {
    if (load === 'every' || load.includes(entry.name)) {
      (await entry.load()).register(program);
    } else {
      listedOnly.set(program.command(entry.name).description(entry.summary), `${entry.name} ${entry.usage}`.trim());
    }
  }
  const standard = new Help();
  program.configureHelp({ subcommandTerm: (command) => listedOnly.get(command) ?? standard.subcommandTerm(command) });
  return program;
}

/**
 * Runs the CLI; resolves to the process exit code. Given a terminal, the run prints to and reads from it instead of
 * the process's standard streams (lib/cli/terminal.ts).
 */
export function main(argv: readonly string[], terminal?: Terminal): Promise<number> {
  return inTerminal(terminal, () => run(argv));
}

async function run(argv: readonly string[]): Promise<number> {
  // argv is [node, script, command, …].
  const program = await buildProgram(commandsToLoad(argv.slice(2)));
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode; // commander already printed help or the error
    if (process.env.PIPELINECTL_DEBUG === '1') currentTerminal().stderr.write(`${inspect(error)}\n`);
    if (error instanceof ConfigError) {
      printStderr(error.message);
      return 1;
    }
    // A failure's message may repeat what AWS, a cluster or a Git host answered.
    if (error instanceof CliError) {
      printStderr(`error: ${redact(error.message)}`);
      return error.exitCode;
    }
    printStderr(`error: ${redact(errorMessage(error))}`);
    return 1;
  }
}
