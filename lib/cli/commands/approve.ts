// pipelinectl approve: approve the revision waiting in a manual environment, and let the verifier promote it.
import type { Command } from 'commander';
import { objectKeyString } from '../../pipeline/model.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('approve')
    .summary('Approve the revision waiting in a manual environment')
    .argument('<pipeline>', 'NAMESPACE/NAME of the pipeline')
    .argument('<env>', 'the manual environment')
    .option('--revision <revision>', 'approve exactly this revision (default: the one waiting)')
    .addOption(outputOption(['text', 'json']))
    .description(
      'Approve the revision waiting for approval in a manual environment (or exactly --revision, which must be the ' +
        'one waiting) and let the verifier promote it. The approval is recorded with who gave it: local:<user> in ' +
        "the local mode, the caller's ARN on AWS. Approving again is harmless; when nothing waits for that " +
        'revision, nothing changes and the exit code is 1. With -o json it prints what was approved, by whom and ' +
        'when, as one JSON object.',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl approve flux-system/podinfo staging\n' +
        '  pipelinectl approve flux-system/podinfo staging --revision 6.9.2 --aws --stack PipelineControllerStack\n' +
        '  pipelinectl approve flux-system/podinfo staging -o json',
    );
  addBackendOptions(command).action(
    async (name: string, env: string, options: { revision?: string; output: 'text' | 'json' }) => {
      const key = parseObjectKey(name, 'the pipeline');
      const { approveJson, approveRevision } = await import('../actions/approve.js');
      await withBackend(command, async (backend) => {
        const result = await approveRevision(backend, key, env, options.revision);
        const what = `${objectKeyString(key)} ${env} ${result.revision}`;
        if (options.output === 'json') printJson(approveJson(key, env, result));
        else
          console.log(result.outcome === 'approved' ? `approved ${what} as ${result.by}` : `already approved ${what}`);
        if (!result.delivered) {
          console.error(`note: pipelinectl serve is not running on ${backend.description}: it promotes when it starts`);
        }
      });
    },
  );
}
