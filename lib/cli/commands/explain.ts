// pipelinectl explain: why each environment of a pipeline is where it is.
import type { Command } from 'commander';
import { addBackendOptions, backendFlags, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('explain')
    .summary('Why each environment of a pipeline is where it is')
    .argument('<pipeline>', 'NAMESPACE/NAME of the pipeline')
    .argument('[env]', 'only this environment')
    .description(
      'Explain why a pipeline is where it is: the candidate revision, and for each environment (or just ENV) the ' +
        "decision's state, reason and one-line explanation, the target statuses it rests on (revision, phase, " +
        'reason and message, when each was last seen), the approval marker and the promotions, then what the ' +
        'verifier would do next and which environment waits for a person, with the approve and reject commands. ' +
        'It runs the same decision as the verifier, on the stored state, and changes nothing.',
    )
    .addOption(outputOption(['text', 'json']))
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl explain flux-system/podinfo\n  pipelinectl explain flux-system/podinfo prod -o json',
    );
  addBackendOptions(command).action(
    async (name: string, env: string | undefined, options: { output: 'text' | 'json' }) => {
      const key = parseObjectKey(name, 'the pipeline');
      const { explanation, explanationJson } = await import('../operations/explain.js');
      const { pipelineViews } = await import('../operations/status.js');
      await withBackend(command, async (backend) => {
        const now = new Date();
        const [view] = await pipelineViews(backend, key, now);
        if (!view) return;
        const approveFlags = backendFlags(command);
        if (options.output === 'json') printJson(explanationJson(view, env, { approveFlags }));
        else printLines(explanation(view, env, now, { approveFlags }));
      });
    },
  );
}
