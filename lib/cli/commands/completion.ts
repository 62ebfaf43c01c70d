// pipelinectl completion bash|zsh: the shell completion script, made at each run from the program's own command
// tree (lib/cli/completion), so it completes exactly the commands and options this pipelinectl has.
import { Argument, type Command } from 'commander';
import { bashCompletionScript } from '../completion/bash.js';
import { completionTree } from '../completion/command-tree.js';
import { zshCompletionScript } from '../completion/zsh.js';
import { currentTerminal } from '../terminal.js';

const SHELLS = ['bash', 'zsh'] as const;
type Shell = (typeof SHELLS)[number];

const SCRIPTS: Readonly<Record<Shell, typeof bashCompletionScript>> = {
  bash: bashCompletionScript,
  zsh: zshCompletionScript,
};

export function register(program: Command): void {
  program
    .command('completion')
    .summary('Print the bash or zsh completion script of pipelinectl')
    .description(
      'Print a script that completes the commands of pipelinectl, their options and the fixed values of options ' +
        'and arguments in bash or zsh (not pipeline or cluster names). Load it in the current shell, or save it ' +
        'where the shell loads completions from.',
    )
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  source <(pipelinectl completion bash)\n' +
        '  pipelinectl completion bash > ~/.local/share/bash-completion/completions/pipelinectl\n' +
        '  source <(pipelinectl completion zsh)          # after compinit\n' +
        '  pipelinectl completion zsh > "${fpath[1]}/_pipelinectl"',
    )
    .action((shell: Shell) => {
      currentTerminal().stdout.write(SCRIPTS[shell](completionTree(program)));
    });
}
