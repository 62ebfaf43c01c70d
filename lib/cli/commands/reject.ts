// pipelinectl reject: stop the revision waiting in a manual environment from being promoted there.
import type { Command } from 'commander';
import { objectKeyString } from '../../pipeline/model.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('reject')
    .summary('Reject the revision waiting in a manual environment')
    .argument('<pipeline>', 'NAMESPACE/NAME of the pipeline')
    .argument('<env>', 'the manual environment')
    .option('--revision <revision>', 'reject exactly this revision (default: the one waiting)')
    .requiredOption('--reason <text>', 'why, in one line: kept on the approval and in the audit trail')
    .addOption(outputOption(['text', 'json']))
    .description(
      'Reject the revision waiting for approval in a manual environment (or exactly --revision, which must be the ' +
        'one waiting): it is not promoted there, whatever approvals follow, until a newer revision asks for ' +
        "approval. Whoever the environment's approval policy lets approve may reject. The rejection is recorded " +
        "with who gave it (local:<user> in the local mode, the caller's ARN on AWS) and why, on the approval and " +
        'in the audit trail. Rejecting again is harmless; when nothing waits for that revision, it was approved ' +
        'already or the policy does not list the caller, nothing changes and the exit code is 1. With -o json it ' +
        'prints what was rejected, by whom, when and why, as one JSON object.',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl reject flux-system/podinfo prod --reason "breaks the checkout flow (INC-1234)"\n' +
        '  pipelinectl reject flux-system/podinfo prod --revision 6.9.2 --reason "not before the audit" --aws\n' +
        '  pipelinectl reject flux-system/podinfo prod --reason "wrong build" -o json',
    );
  addBackendOptions(command).action(
    async (name: string, env: string, options: { revision?: string; reason: string; output: 'text' | 'json' }) => {
      const key = parseObjectKey(name, 'the pipeline');
      const { rejectJson, rejectRevision } = await import('../operations/reject.js');
      await withBackend(command, async (backend) => {
        const result = await rejectRevision(backend, key, env, options.revision, options.reason);
        const what = `${objectKeyString(key)} ${env} ${result.revision}`;
        if (options.output === 'json') printJson(rejectJson(key, env, result));
        else if (result.outcome === 'rejected') printLines([`rejected ${what} as ${result.by}: ${result.reason}`]);
        else {
          const by = result.by ? ` by ${result.by}` : '';
          printLines([`already rejected ${what}${by}${result.reason ? `: ${result.reason}` : ''}`]);
        }
      });
    },
  );
}
