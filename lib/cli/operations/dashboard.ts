// What `pipelinectl dashboard` does: serves the dashboard (lib/cli/dashboard) over the command's backend on a loopback
// address, prints its owner's URL (with the token), and runs until SIGINT or SIGTERM; the backend is closed by the
// caller (withBackend). Also the dashboard `serve --dashboard-port` and the demo serve beside their local mode.
import { rm } from 'node:fs/promises';
import { dataPath, readJson, writeJsonAtomically } from '../../local/data-dir.js';
import type { Logger } from '../../logging/logger.js';
import { isLoopbackHost } from '../dashboard/loopback.js';
import { startDashboard, type RunningDashboard } from '../dashboard/server.js';
import type { Backend } from '../backend.js';
import { openLocalBackend } from '../backends/local.js';
import { CliError } from '../errors.js';
import { parsePort } from '../flags.js';
import { errorMessage } from '../../util/error-message.js';

export interface DashboardCommandOptions {
  host: string;
  port: number;
}

/** Starts the dashboard; a CliError for a host that is not loopback or a port in use (named as `portFlag`). */
export async function openDashboard(
  backend: Backend | Promise<Backend>,
  options: DashboardCommandOptions,
  logger: Pick<Logger, 'warn' | 'error'>,
  portFlag = '--port',
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
        `port ${options.port} on ${options.host} is in use: pick another with ${portFlag} (0 picks a free one)`,
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
  process.stdout.write(`dashboard: ${dashboard.ownerUrl}\n`);
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

/**
 * `--dashboard-port` of `serve` and `demo`: a port for 127.0.0.1, never the receiver's. The receiver is what Flux
 * reaches, often from other machines; the dashboard acts with the caller's identity and must stay on this one.
 */
export function parseDashboardPort(text: string, receiverPort: number): number {
  const port = parsePort(text, '--dashboard-port');
  if (port !== 0 && port === receiverPort) {
    throw new CliError(
      `--dashboard-port ${port} is the receiver's --port: the dashboard needs a port of its own (0 picks a free one)`,
    );
  }
  return port;
}

/** The dashboard served beside a local mode (`serve --dashboard-port`, the demo), on 127.0.0.1. */
export interface DashboardBesideLocalMode {
  /** Without the token: what a log may say. */
  url: string;
  /** With the token: for the owner's terminal only. */
  ownerUrl: string;
  /** The data directory's dashboard.json (0600), which holds `ownerUrl` while the dashboard runs. */
  ownerUrlFile: string;
  /**
   * Writes ownerUrlFile, and opens the data directory through the running local mode (its serve.json): call once it
   * runs, when the data directory is made and its modes are checked. It does not throw: should opening fail, the pages
   * answer 500 and the logger says why.
   */
  attach(): Promise<void>;
  /** Closes the dashboard and what attach opened; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Listens at once, so that the URL can be printed before the local mode starts; pages wait until `attach`. The
 * backend is the one `pipelinectl dashboard --data-dir` gets while serve runs: its store over serve's dynalite, and
 * approvals handed to serve's verifier through its message route.
 */
export async function startDashboardBesideLocalMode(
  dataDir: string,
  port: number,
  logger: Logger,
): Promise<DashboardBesideLocalMode> {
  let resolveBackend: (backend: Promise<Backend>) => void = () => undefined;
  const backend = new Promise<Backend>((resolve) => (resolveBackend = resolve));
  const dashboard = await openDashboard(backend, { host: '127.0.0.1', port }, logger, '--dashboard-port');
  const ownerUrlFile = dataPath(dataDir, 'dashboard');
  let attached = false;
  let closing: Promise<void> | undefined;
  return {
    url: dashboard.url,
    ownerUrl: dashboard.ownerUrl,
    ownerUrlFile,
    attach: async () => {
      attached = true;
      resolveBackend(openLocalBackend(dataDir, logger));
      const info: DashboardInfo = { pid: process.pid, url: dashboard.ownerUrl };
      await writeJsonAtomically(ownerUrlFile, info, 0o600).catch((error: unknown) =>
        logger.warn('dashboard: writing its URL into the data directory failed', {
          error: errorMessage(error),
        }),
      );
    },
    close: () =>
      (closing ??= (async () => {
        await dashboard.close();
        // Before attach there is nothing to close (and the backend would never come).
        if (!attached) return;
        await removeOwnedFile(ownerUrlFile);
        await backend.then((opened) => opened.close()).catch(() => undefined);
      })()),
  };
}

/** dashboard.json: whose dashboard, and the URL that lets its owner in. */
interface DashboardInfo {
  pid: number;
  url: string;
}

/** Removes dashboard.json if this process wrote it (a second serve on the data directory may have since). */
async function removeOwnedFile(path: string): Promise<void> {
  const info = await readJson<Partial<DashboardInfo>>(path).catch(() => undefined);
  if (info?.pid === process.pid) await rm(path, { force: true });
}
