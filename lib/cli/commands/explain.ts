// pipelinectl explain: why each environment of a pipeline is where it is.
import type { Command } from 'commander';
import { addBackendOptions, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printLines } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('explain')
    .summary('Why each environment of a pipeline is where it is')
    .argument('<pipeline>', 'NAMESPACE/NAME of the pipeline')
    .argument('[env]', 'only this environment')
    .description(
      'Explain why a pipeline is where it is: the candidate revision, and for each environment (or just ENV) the ' +
        "decision's state and one-line explanation, the target statuses it rests on (revision, health, reason or " +
        'read error, when each was last seen), the approval marker and the promotions, then what the verifier ' +
        'would do next. It runs the same decision as the verifier, on the stored state, and changes nothing.',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl explain flux-system/podinfo\n  pipelinectl explain flux-system/podinfo prod',
    );
  addBackendOptions(command).action(async (name: string, env: string | undefined) => {
    const key = parseObjectKey(name, 'the pipeline');
    const { explanation } = await import('../actions/explain.js');
    const { pipelineViews } = await import('../actions/status.js');
    await withBackend(command, async (backend) => {
      const now = new Date();
      const [view] = await pipelineViews(backend, key, now);
      if (view) printLines(explanation(view, env, now));
    });
  });
}
