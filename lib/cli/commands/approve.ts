// pipelinectl approve: approve the revision waiting in a manual environment, and let the verifier promote it.
import type { Command } from 'commander';
import { objectKeyString } from '../../pipeline/model.js';
import { addBackendOptions, outputOption, withBackend } from '../options.js';
import { parseObjectKey } from '../flags.js';
import { printJson, printLines, printStderr } from '../output.js';
import type { ApproveResult } from '../operations/approve.js';

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
        "the local mode, the caller's ARN on AWS. An environment's approval policy may require several distinct " +
        'approvers (each approval is counted, the promotion starts with the last one) and may restrict who may ' +
        'approve. Approving again is harmless; when nothing waits for that revision, the revision was rejected or ' +
        'the policy does not list the caller, nothing changes and the exit code is 1. With -o json it prints what ' +
        'was approved, by whom and when, and how many approvals it has of how many needed, as one JSON object.',
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
      const { approvalCountText, approveJson, approveRevision } = await import('../operations/approve.js');
      await withBackend(command, async (backend) => {
        const result = await approveRevision(backend, key, env, options.revision);
        const what = `${objectKeyString(key)} ${env} ${result.revision}`;
        if (options.output === 'json') printJson(approveJson(key, env, result));
        else printLines([approveLine(what, result, approvalCountText(result.have, result.need))]);
        const promotes = result.outcome === 'approved' || result.outcome === 'already-approved';
        if (promotes && !result.delivered) {
          printStderr(`note: pipelinectl serve is not running on ${backend.description}: it promotes when it starts`);
        }
      });
    },
  );
}

/** The line of text output; the count only where the policy asks for more than one approver. */
function approveLine(what: string, result: ApproveResult, count: string): string {
  switch (result.outcome) {
    case 'approved':
      return `approved ${what} as ${asWho(result)}${result.need > 1 ? ` (${count})` : ''}`;
    case 'counted':
      return `approved ${what} as ${asWho(result)}: ${count} before the promotion starts`;
    case 'already-counted':
      return `already approved ${what} as ${asWho(result)} (an approver counts once): ${count} before the promotion starts`;
    case 'already-approved':
      return `already approved ${what}`;
  }
}

/** `local:alice`; `arn:…:assumed-role/ReleaseManager/alice, counted as arn:…:role/ReleaseManager` for a session. */
function asWho(result: { by: string; countedAs?: string }): string {
  return result.countedAs === undefined ? result.by : `${result.by}, counted as ${result.countedAs}`;
}
