// pipelinectl dlq list|redrive: the deployed stack's dead-letter queue. The local mode has no such queue: its
// embedded queue keeps dead letters in memory in the running serve and logs each one.
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';
import { addBackendOptions, backendOptionsOf, outputOption, withBackend } from '../options.js';
import { printJson, printLines, printStderr } from '../output.js';

const LOCAL_MODE =
  'the local mode has no dead-letter queue to read: the running pipelinectl serve keeps dead letters in memory ' +
  'and logs each one (see its log). Use --aws to act on a deployed stack';

type DeadLetters = NonNullable<Backend['deadLetters']>;

/** Runs `action` on the stack's dead-letter queue, or says why there is none. */
async function withDeadLetters<T>(
  command: Command,
  action: (deadLetters: DeadLetters, backend: Backend) => Promise<T>,
): Promise<T> {
  if (!backendOptionsOf(command).aws) throw new CliError(LOCAL_MODE);
  return withBackend(command, (backend) => {
    if (!backend.deadLetters) {
      throw new CliError(
        `no dead-letter queue is known for ${backend.description}: pass --stack or --dead-letter-queue-url`,
      );
    }
    return action(backend.deadLetters, backend);
  });
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1');
  return n;
}

export function register(program: Command): void {
  const dlq = program
    .command('dlq')
    .summary("List or redrive the deployed stack's dead-letter queue (--aws)")
    .description(
      "Look at and redrive the deployed stack's dead-letter queue (--aws only): messages the verifier failed on " +
        'too many times, and bodies that were not valid messages.',
    )
    .addHelpText('after', '\nExamples:\n  pipelinectl dlq list --aws --stack PipelineControllerStack');

  const list = dlq
    .command('list')
    .summary('List the dead letters, without their bodies')
    .description(
      'List the messages in the dead-letter queue, without their bodies: the message id, how many times it was ' +
        'received, what the message is (its type and keys, or "undecodable") and why it was dead-lettered. The ' +
        'messages stay in the queue (they are made visible again at once).',
    )
    .addOption(new Option('--max <n>', 'list at most this many messages').default(50).argParser(positiveInteger))
    .addOption(outputOption(['table', 'json']))
    .addHelpText('after', '\nExamples:\n  pipelinectl dlq list --aws --stack PipelineControllerStack --max 10');
  addBackendOptions(list).action(async (options: { max: number; output: 'table' | 'json' }) => {
    const { deadLettersTable } = await import('../operations/dlq.js');
    await withDeadLetters(list, async (deadLetters, backend) => {
      const letters = await deadLetters.list(options.max);
      if (options.output === 'json') return printJson({ deadLetters: letters });
      if (letters.length === 0) return printStderr(`the dead-letter queue of ${backend.description} is empty`);
      printLines(deadLettersTable(letters));
    });
  });

  const redrive = dlq
    .command('redrive')
    .summary('Move the dead letters that decode back to the work queue')
    .description(
      'Move every message of the dead-letter queue back to the work queue, in batches of 10: each is sent to the ' +
        'queue, then deleted from the dead-letter queue. Bodies that are not valid messages stay where they are ' +
        '(the verifier would only dead-letter them again). Prints how many were moved.',
    )
    .addHelpText('after', '\nExamples:\n  pipelinectl dlq redrive --aws --stack PipelineControllerStack');
  addBackendOptions(redrive).action(async () => {
    await withDeadLetters(redrive, async (deadLetters) => {
      const { moved, undecodable } = await deadLetters.redrive();
      const left = undecodable > 0 ? `; ${undecodable} undecodable left in the dead-letter queue` : '';
      printLines([`redrove ${moved} message${moved === 1 ? '' : 's'} to the work queue${left}`]);
    });
  });
}
