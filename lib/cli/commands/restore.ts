// pipelinectl restore: a local data directory made from a backup file, all or nothing.
import type { Command } from 'commander';
import { describeContents } from '../../local/backup-file.js';
import { printLines } from '../output.js';

export function register(program: Command): void {
  program
    .command('restore')
    .summary('Make the local data directory from a backup file (all or nothing)')
    .description(
      'Check the backup file whole (its digest, its item count, every line), then build a new data directory next ' +
        'to --data-dir with its master key, Secrets and every item, and rename it into place: either everything is ' +
        'restored or nothing changes. Refused while pipelinectl serve (or the demo) runs on the data directory, and ' +
        'into a data directory that holds anything unless --force, which moves its contents aside to ' +
        '<dir>.before-restore-<time> (delete that once satisfied).',
    )
    .requiredOption('--from <file>', 'the backup file (pipelinectl backup)')
    .option('--data-dir <dir>', "the local mode's data directory", '.data')
    .option('--force', 'restore into a data directory that holds something, moving its contents aside')
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl restore --from backups/pipelinectl-backup-20261124T074722Z.jsonl\n' +
        '  pipelinectl restore --data-dir .data --from pipelines.jsonl --force',
    )
    .action(async (options: { from: string; dataDir: string; force?: boolean }) => {
      const { restoreDataDir } = await import('../operations/restore.js');
      const result = await restoreDataDir(options.dataDir, options.from, { force: options.force === true });
      printLines([`restored ${describeContents(result.items, result.files)} into ${options.dataDir}`]);
      if (result.aside) printLines([`the previous contents of ${options.dataDir} are in ${result.aside}`]);
    });
}
