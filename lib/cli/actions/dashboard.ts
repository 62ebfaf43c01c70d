// What `pipelinectl dashboard` does: serves the dashboard (lib/cli/dashboard) over the command's backend on a loopback
// address, prints its URL, and runs until SIGINT or SIGTERM; the backend is closed by the caller (withBackend).
import type { Logger } from '../../logging/logger.js';
import { isLoopbackHost } from '../dashboard/loopback.js';
import { startDashboard, type RunningDashboard } from '../dashboard/server.js';
import type { Backend } from '../backend.js';
import { CliError } from '../errors.js';

export interface DashboardCommandOptions {
  host: string;
  port: number;
}

/** Starts the dashboard; a CliError for a host that is not loopback or a port in use. */
export async function openDashboard(
  backend: Backend,
  options: DashboardCommandOptions,
  logger: Pick<Logger, 'warn' | 'error'>,
): Promise<RunningDashboard> {
  if (!isLoopbackHost(options.host)) {
    throw new CliError(
      `--host must be a loopback address (127.0.0.1, ::1 or localhost), not ${JSON.stringify(options.host)}: ` +
        'the dashboard acts with your identity and is never exposed beyond this machine',
    );
  }
  try {
    return await startDashboard({ backend, host: options.host, port: options.port, logger });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(
        `port ${options.port} on ${options.host} is in use: pick another with --port (0 picks a free one)`,
      );
    }
    throw error;
  }
}

/** Serves until the first SIGINT or SIGTERM, then closes the dashboard; a second signal ends the process at once. */
export async function runDashboard(
  backend: Backend,
  options: DashboardCommandOptions,
  logger: Pick<Logger, 'warn' | 'error'>,
): Promise<void> {
  const dashboard = await openDashboard(backend, options, logger);
  process.stdout.write(`dashboard: ${dashboard.url}\n`);
  process.stderr.write(`reading ${backend.description} (Ctrl-C stops)\n`);
  let stopping = false;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (received: NodeJS.Signals): void => {
      if (stopping) process.exit(130);
      stopping = true;
      resolve(received);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  process.stderr.write(`stopping (${signal})\n`);
  await dashboard.close();
}
