// pipelinectl dashboard: a web page over the command's backend (the local data directory or a deployed stack), on
// 127.0.0.1 only. It shows the fleet, each pipeline and the audit trail, updates live, and approves with the
// caller's identity, exactly as `pipelinectl approve` does.
import { Option, type Command } from 'commander';
import { DEFAULT_DASHBOARD_PORT, parseHost, parsePort } from '../flags.js';
import { addBackendOptions, withBackend } from '../options.js';

interface DashboardFlags {
  port: string;
  host: string;
}

export function register(program: Command): void {
  const command = program
    .command('dashboard')
    .summary('Serve a live web dashboard of the fleet on 127.0.0.1')
    .description(
      'Serve a web dashboard on a loopback address (never beyond this machine) and print its URL: the fleet with ' +
        "each environment's state and waiting approvals, each pipeline as status and explain show it, with an " +
        'Approve button on a waiting environment, and the audit trail. Pages update live. It reads and approves ' +
        'through the same backend as the other commands: the local data directory, or a deployed stack with your ' +
        'AWS credentials (an approval records local:<user> or your ARN). Runs until Ctrl-C.',
    )
    .addOption(new Option('--port <port>', 'port to listen on (0 picks a free one)').default(DEFAULT_DASHBOARD_PORT))
    .addOption(
      new Option('--host <host>', 'loopback address to listen on (127.0.0.1, ::1, localhost)').default('127.0.0.1'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  pipelinectl dashboard --data-dir .data/demo\n' +
        '  pipelinectl dashboard --port 0 --aws --stack PipelineControllerStack',
    );
  addBackendOptions(command).action(async (flags: DashboardFlags) => {
    const options = { port: parsePort(flags.port), host: parseHost(flags.host) };
    const { runDashboard } = await import('../operations/dashboard.js');
    const { STDERR_WARNINGS } = await import('../backends/local.js');
    await withBackend(command, (backend) => runDashboard(backend, options, STDERR_WARNINGS));
  });
}
