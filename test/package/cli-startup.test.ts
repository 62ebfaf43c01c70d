// pipelinectl answers --help, --version and an unknown command without loading any command's module (that is what
// keeps the installed CLI under 300 ms, bench/cli-startup.ts): the top-level help then lists the commands from
// main.ts's own table. These tests hold that table to what the modules declare, and check which modules a run loads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram, commandsToLoad } from '../../lib/cli/main.js';

/** The commands registered by their module: a command listed by its help line alone has no option or argument. */
function loaded(program: Command): string[] {
  return program.commands
    .filter((command) => command.options.length + command.registeredArguments.length + command.commands.length > 0)
    .map((command) => command.name());
}

const programFor = (args: string[]) => buildProgram(commandsToLoad(args));

describe('pipelinectl start-up', () => {
  it('prints, without loading a command, the same top-level help as with every command loaded', async () => {
    const listed = await buildProgram([]);
    const every = await buildProgram('every');
    assert.equal(listed.helpInformation(), every.helpInformation());
    assert.equal(loaded(every).length, every.commands.length, 'each module registers options or arguments');
  });

  it('loads the command it runs, or the one help is asked for, and no other', async () => {
    assert.deepEqual(loaded(await programFor(['status', 'flux-system/podinfo', '-o', 'json'])), ['status']);
    assert.deepEqual(loaded(await programFor(['help', 'approve'])), ['approve']);
    assert.deepEqual(loaded(await programFor(['dlq', 'list'])), ['dlq']);
  });

  it('loads none for --version, --help, no command or an unknown one', async () => {
    for (const args of [['--version'], ['--help'], [], ['stauts']]) {
      assert.deepEqual(loaded(await programFor(args)), [], args.join(' '));
    }
  });

  it('loads every command for completion, whose script is made from all of them', async () => {
    const program = await programFor(['completion', 'bash']);
    assert.equal(loaded(program).length, program.commands.length);
  });
});
