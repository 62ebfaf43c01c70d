// `pipelinectl completion zsh`: a zsh completion function for pipelinectl, the same walk as the bash one
// (bash.ts) over the same tables, with zsh's descriptions: subcommands and options are offered with their help
// text, an option's value from its fixed list (file names for any other value, `--output=` forms included), a
// positional argument's fixed values. NS/NAME arguments get nothing.
import { allNodes, type CompletionNode } from './command-tree.js';
import { singleQuoted } from '../../util/shell-word.js';
import { plainWord } from './shell-words.js';

/** One `case` over `$key` that sets `reply` to an array, one branch per key that has any entry. */
function table(name: string, key: string, rows: readonly (readonly [string, readonly string[]])[]): string {
  const branches = rows
    .filter(([, entries]) => entries.length > 0)
    .map(([match, entries]) => `    (${singleQuoted(match)}) reply=(${entries.join(' ')}) ;;`);
  return [`${name}() {`, `  case ${key} in`, ...branches, '    (*) reply=() ;;', '  esac', '}'].join('\n');
}

const keyOf = (node: CompletionNode): string => node.path.join(' ');
/** `name:description`, as _describe takes it (a colon in the name would need escaping; names have none). */
const described = (name: string, description: string): string =>
  singleQuoted(`${plainWord(name)}:${description.replace(/\s+/g, ' ')}`);

export function zshCompletionScript(tree: CompletionNode): string {
  const nodes = allNodes(tree);
  return `#compdef pipelinectl
# zsh completion for pipelinectl, made by \`pipelinectl completion zsh\` from its commands and options.
# Load it in the current shell (after compinit) with
#   source <(pipelinectl completion zsh)
# or for every shell, save it as _pipelinectl in a folder of $fpath, e.g.
#   pipelinectl completion zsh > "\${fpath[1]}/_pipelinectl"

${table(
  '__pipelinectl_subcommands',
  '$1',
  nodes.map((node) => [keyOf(node), node.subcommands.map((sub) => described(sub.path.at(-1) ?? '', sub.description))]),
)}

${table(
  '__pipelinectl_options',
  '$1',
  nodes.map((node) => [
    keyOf(node),
    node.options.flatMap((option) => option.flags.map((flag) => described(flag, option.description))),
  ]),
)}

${table(
  '__pipelinectl_value_options',
  '$1',
  nodes.map((node) => [
    keyOf(node),
    node.options.filter((option) => option.takesValue).flatMap((option) => option.flags.map(plainWord)),
  ]),
)}

${table(
  '__pipelinectl_option_values',
  '"$1 $2"',
  nodes.flatMap((node) =>
    node.options.flatMap((option) =>
      option.flags.map((flag) => [`${keyOf(node)} ${flag}`, option.choices.map(plainWord)] as const),
    ),
  ),
)}

${table(
  '__pipelinectl_argument_values',
  '"$1 $2"',
  nodes.flatMap((node) =>
    node.argumentChoices.map((choices, i) => [`${keyOf(node)} ${i}`, choices.map(plainWord)] as const),
  ),
)}

_pipelinectl() {
  local command_path='' option='' word cur=\${words[CURRENT]}
  local -a reply names
  integer i position=0
  for (( i = 2; i < CURRENT; i++ )); do
    word=\${words[i]}
    if [[ -n $option ]]; then
      option=''
      continue
    fi
    case $word in
      (--*=*) ;;
      (-*)
        __pipelinectl_value_options "$command_path"
        (( \${reply[(Ie)$word]} )) && option=$word
        ;;
      (*)
        __pipelinectl_subcommands "$command_path"
        names=(\${reply%%:*})
        if (( \${names[(Ie)$word]} )); then
          command_path=\${command_path:+$command_path }$word
          position=0
        else
          (( position++ ))
        fi
        ;;
    esac
  done
  if [[ -z $option && $cur == --*=* ]]; then
    option=\${cur%%=*}
    compset -P '*='
  fi
  if [[ -n $option ]]; then
    __pipelinectl_option_values "$command_path" "$option"
    if (( $#reply )); then
      compadd -a reply
    else
      _files
    fi
    return
  fi
  if [[ $cur == -* ]]; then
    __pipelinectl_options "$command_path"
    _describe -t options option reply
    return
  fi
  __pipelinectl_subcommands "$command_path"
  if (( $#reply )); then
    _describe -t commands command reply
    return
  fi
  __pipelinectl_argument_values "$command_path" "$position"
  (( $#reply )) && compadd -a reply
}

if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  # Autoloaded from $fpath as _pipelinectl: this file is the function's body.
  _pipelinectl "$@"
else
  compdef _pipelinectl pipelinectl
fi
`;
}
