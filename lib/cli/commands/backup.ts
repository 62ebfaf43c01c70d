// pipelinectl backup: the local data directory (store items, master key, Secrets) in one file, also while serve runs.
import type { Command } from 'commander';
import { describeContents } from '../../local/backup-file.js';
import { printLines } from '../output.js';

export function register(program: Command): void {
  program
    .command('backup')
    .summary('Back up the local data directory (store, master key, Secrets) to one file, also while serve runs')
    .description(
      "Write every item of the local data directory's store, its master-key.json and its secrets.json to one " +
        'file (JSON lines, mode 0600: it holds the keys). While pipelinectl serve runs, the items are read through ' +
        'it, so nothing has to stop; otherwise the data directory is opened, and checked, first. --to names the new ' +
        'file, or a directory to write pipelinectl-backup-<time>.jsonl into; an existing file is never overwritten. ' +
        'pipelinectl restore makes a data directory from it.',
    )
    .requiredOption('--to <file-or-dir>', 'the backup file to write, or a directory to write it into')
    .option('--data-dir <dir>', "the local mode's data directory", '.data')
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl backup --to backups/\n  pipelinectl backup --data-dir .data --to pipelines.jsonl',
    )
    .action(async (options: { to: string; dataDir: string }) => {
      const { requireStore } = await import('../backends/local.js');
      await requireStore(options.dataDir);
      const { backupDataDir } = await import('../operations/backup.js');
      const result = await backupDataDir(options.dataDir, options.to);
      printLines([`backed up ${describeContents(result.items, result.files)} to ${result.file}`]);
    });
}
