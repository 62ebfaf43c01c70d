// pipelinectl retry: run again a promotion that failed for good, once a person has fixed its cause.
import type { Command } from 'commander';
import { objectKeyString } from '../../pipeline/model.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines, printStderr } from '../output.js';

export function register(program: Command): void {
  const command = program
    .command('retry')
    .summary('Retry a promotion that failed for good')
    .argument('<pipeline>', 'NAMESPACE/NAME of the pipeline')
    .argument('<env>', 'the environment the promotion is to')
    .option('--revision <revision>', "retry exactly this revision's promotion (default: the newest in ENV)")
    .option('--rollback', "retry ENV's rollback pull request instead (--revision: the failed revision it rolls back)")
    .addOption(outputOption(['text', 'json']))
    .description(
      'Retry a promotion that failed for good (failed, with no retry scheduled: bad credentials, no marker in the ' +
        "repository, an outage past the retry limit) once its cause is fixed. By default the environment's newest " +
        "promotion; with --revision, that revision's. The promotion is made due now and the verifier runs it " +
        'again; the retry is recorded in the audit trail with who asked for it: local:<user> in the local mode, ' +
        "the caller's ARN on AWS. When the promotion did not fail for good, or the pipeline has moved on to " +
        'another candidate, nothing changes and the exit code is 1. With -o json it prints what was retried, by ' +
        'whom and when, as one JSON object. With --rollback, the same for the rollback pull request of ENV that ' +
        'failed for good (docs/rollback.md).',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl retry flux-system/podinfo prod\n' +
        '  pipelinectl retry flux-system/podinfo prod --revision 6.9.2 --aws --stack PipelineControllerStack\n' +
        '  pipelinectl retry flux-system/podinfo prod -o json\n' +
        '  pipelinectl retry flux-system/podinfo prod --rollback',
    );
  addBackendOptions(command).action(
    async (name: string, env: string, options: { revision?: string; rollback?: boolean; output: 'text' | 'json' }) => {
      const key = parseObjectKey(name, 'the pipeline');
      const { retryJson, retryPromotion } = await import('../operations/retry.js');
      await withBackend(command, async (backend) => {
        const result = await retryPromotion(backend, key, env, options.revision, new Date(), {
          rollback: options.rollback === true,
        });
        if (options.output === 'json') printJson(retryJson(key, env, result));
        else {
          printLines([
            `retrying ${options.rollback ? 'the rollback of ' : ''}${objectKeyString(key)} ${env} ${result.revision} ` +
              `(attempt ${result.attempt}) as ${result.by}`,
          ]);
        }
        if (!result.delivered) {
          printStderr(`note: pipelinectl serve is not running on ${backend.description}: it retries when it starts`);
        }
      });
    },
  );
}
