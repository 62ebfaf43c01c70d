// What shell completion needs to know of pipelinectl, read from commander's own command tree (every command, option
// and fixed list of values as the command modules declare them), so that a completion script cannot drift from the
// CLI it completes.
import type { Command } from 'commander';

export interface CompletionOption {
  /** Its spellings: `-o`, `--output`. */
  readonly flags: readonly string[];
  readonly description: string;
  /** Whether the word after it is its value. */
  readonly takesValue: boolean;
  /** The values it accepts when they are a fixed list; empty for any value (a path, a URL, NS/NAME, …). */
  readonly choices: readonly string[];
}

export interface CompletionNode {
  /** The words that name the command after `pipelinectl`: `[]` for pipelinectl itself, `['dlq', 'list']`. */
  readonly path: readonly string[];
  readonly description: string;
  readonly subcommands: readonly CompletionNode[];
  readonly options: readonly CompletionOption[];
  /** The fixed values of each positional argument by position; empty for any value, such as NS/NAME. */
  readonly argumentChoices: readonly (readonly string[])[];
}

/** The completion tree of `program`, as its help shows it (hidden commands and options left out). */
export function completionTree(program: Command): CompletionNode {
  return nodeOf(program, []);
}

function nodeOf(command: Command, path: readonly string[]): CompletionNode {
  const help = command.createHelp();
  const subcommands = help.visibleCommands(command);
  const named = command.commands.map((sub) => sub.name());
  return {
    path,
    description: help.subcommandDescription(command),
    subcommands: subcommands.map((sub) =>
      // commander's own `help [command]`, which is not among `command.commands`, takes a sibling's name.
      named.includes(sub.name())
        ? nodeOf(sub, [...path, sub.name()])
        : { ...nodeOf(sub, [...path, sub.name()]), argumentChoices: [named] },
    ),
    options: help.visibleOptions(command).map((option) => ({
      flags: [option.short, option.long].filter((flag): flag is string => flag !== undefined),
      description: option.description,
      takesValue: option.required || option.optional,
      choices: option.argChoices ?? [],
    })),
    argumentChoices: command.registeredArguments.map((argument) => argument.argChoices ?? []),
  };
}

/** Every node of the tree, the root first. */
export function allNodes(node: CompletionNode): CompletionNode[] {
  return [node, ...node.subcommands.flatMap(allNodes)];
}
