// `pipelinectl completion bash`: a bash completion function for pipelinectl. The tree is written into `case`
// tables (bash 3.2 has no associative arrays); the function walks the words typed so far to the command they name
// (`dlq list`), skipping option values, and offers that command's subcommands, options, an option's fixed values
// (file names for any other value) or a positional argument's fixed values. NS/NAME arguments get nothing.
import { allNodes, type CompletionNode } from './command-tree.js';
import { singleQuoted } from '../../util/shell-word.js';
import { plainWord } from './shell-words.js';

/** One `case` over `$key` whose branches print words, one branch per key that has any. */
function table(name: string, key: string, rows: readonly (readonly [string, readonly string[]])[]): string {
  const branches = rows
    .filter(([, words]) => words.length > 0)
    .map(([match, words]) => `    ${singleQuoted(match)}) printf '%s\\n' ${words.map(plainWord).join(' ')} ;;`);
  return [`${name}() {`, `  case ${key} in`, ...branches, '  esac', '}'].join('\n');
}

const keyOf = (node: CompletionNode): string => node.path.join(' ');

export function bashCompletionScript(tree: CompletionNode): string {
  const nodes = allNodes(tree);
  const flags = (node: CompletionNode, which: 'all' | 'value') =>
    node.options.filter((option) => which === 'all' || option.takesValue).flatMap((option) => option.flags);
  return `# bash completion for pipelinectl, made by \`pipelinectl completion bash\` from its commands and options.
# Load it in the current shell with
#   source <(pipelinectl completion bash)
# or for every shell, save it where bash-completion looks:
#   pipelinectl completion bash > ~/.local/share/bash-completion/completions/pipelinectl

${table(
  '__pipelinectl_subcommands',
  '$1',
  nodes.map((node) => [keyOf(node), node.subcommands.map((sub) => sub.path.at(-1) ?? '')]),
)}

${table(
  '__pipelinectl_options',
  '$1',
  nodes.map((node) => [keyOf(node), flags(node, 'all')]),
)}

${table(
  '__pipelinectl_value_options',
  '$1',
  nodes.map((node) => [keyOf(node), flags(node, 'value')]),
)}

${table(
  '__pipelinectl_option_values',
  '"$1 $2"',
  nodes.flatMap((node) =>
    node.options.flatMap((option) => option.flags.map((flag) => [`${keyOf(node)} ${flag}`, option.choices] as const)),
  ),
)}

${table(
  '__pipelinectl_argument_values',
  '"$1 $2"',
  nodes.flatMap((node) => node.argumentChoices.map((choices, i) => [`${keyOf(node)} ${i}`, choices] as const)),
)}

# Whether the word $1 is one of the words the rest of the arguments print.
__pipelinectl_among() {
  local word=$1
  shift
  [[ $'\\n'"$("$@")"$'\\n' == *$'\\n'"$word"$'\\n'* ]]
}

_pipelinectl() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command_path='' option='' word
  local -i i position=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    # \`--output=json\` reaches here as three words, \`--output\`, \`=\` and \`json\`: the = changes nothing.
    [[ $word == = ]] && continue
    if [[ -n $option ]]; then
      option=''
      continue
    fi
    case $word in
      -*) __pipelinectl_among "$word" __pipelinectl_value_options "$command_path" && option=$word ;;
      *)
        if __pipelinectl_among "$word" __pipelinectl_subcommands "$command_path"; then
          command_path=\${command_path:+$command_path }$word
          position=0
        else
          position+=1
        fi
        ;;
    esac
  done
  [[ $cur == = ]] && cur=''
  COMPREPLY=()
  if [[ -n $option ]]; then
    local values
    values=$(__pipelinectl_option_values "$command_path" "$option")
    if [[ -n $values ]]; then
      COMPREPLY=($(compgen -W "$values" -- "$cur"))
    else
      # Any value: let bash offer file names (compopt is bash 4's; on bash 3.2 nothing is offered).
      compopt -o default 2>/dev/null
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(__pipelinectl_options "$command_path")" -- "$cur"))
    return 0
  fi
  local subcommands
  subcommands=$(__pipelinectl_subcommands "$command_path")
  if [[ -n $subcommands ]]; then
    COMPREPLY=($(compgen -W "$subcommands" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(__pipelinectl_argument_values "$command_path" "$position")" -- "$cur"))
  fi
  return 0
}

complete -F _pipelinectl pipelinectl
`;
}
