// pipelinectl demo (`npm start`): the local mode against a simulated world of clusters, Flux, GitHub (or GitLab) and
// CI. The demo itself lives in lib/demo (the one part of the product that runs on lib/testing's fakes); this is its
// command line, and the dashboard served beside it (lib/demo does not import the CLI): its URL is the line under the
// banner, printed once the demo runs.
//
// The package leaves the simulation out (lib/demo, the fakes of lib/testing and the examples: package.json `files`),
// so that a CDK app installing it gets none of it; lib/demo is loaded only when the demo runs, and where it is
// absent the command says that the demo runs from a clone of the repository.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Option, type Command } from 'commander';
import type { FleetHostType } from '../../demo/fleet-repository.js';
import type { DemoSettings } from '../../demo/run.js';
import { parseDashboardPort, startDashboardBesideLocalMode } from '../operations/dashboard.js';
import { STDERR_WARNINGS } from '../backends/local.js';
import { CliError } from '../errors.js';
import { DEFAULT_RECEIVER_PORT, parseDuration, parsePort } from '../flags.js';

/**
 * The example each simulated host runs when --config is not given: the same world, promoted through that host, its
 * Pipeline applied by a ConfigSource from the simulated repository, which starts with the files of `repository`.
 */
const DEFAULT_EXAMPLES: Record<FleetHostType, { config: string; repository: string }> = {
  github: {
    config: fileURLToPath(new URL('../../../examples/demo', import.meta.url)),
    repository: fileURLToPath(new URL('../../../examples/demo-fleet', import.meta.url)),
  },
  gitlab: {
    config: fileURLToPath(new URL('../../../examples/demo-gitlab', import.meta.url)),
    repository: fileURLToPath(new URL('../../../examples/demo-gitlab-fleet', import.meta.url)),
  },
};

interface DemoOptions {
  config?: string;
  repository?: string;
  gitHost?: FleetHostType;
  port: string;
  dataDir: string;
  releaseEvery: string;
  mergeAfter: string;
  keepReleasing?: boolean;
  fresh?: boolean;
  verbose?: boolean;
  newStore?: boolean;
  newMasterKey?: boolean;
  dashboard: boolean;
  dashboardPort: string;
}

export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the local mode against simulated clusters, Flux, GitHub (or GitLab) and CI: no cluster or Git host ' +
        'account needed',
    )
    .option(
      '--config <path>',
      'the configuration to simulate; its pull-request type picks the simulated host ' +
        '(default: examples/demo, or examples/demo-gitlab with --git-host gitlab)',
    )
    .option(
      '--repository <dir>',
      "the files the simulated repository starts with, which the configuration's ConfigSources apply " +
        '(default: examples/demo-fleet, or examples/demo-gitlab-fleet, when --config is not given)',
    )
    .addOption(
      // No default value: given with --config, it is checked against the configuration instead of overriding it.
      new Option(
        '--git-host <host>',
        'simulate GitHub pull requests or GitLab merge requests (default: github, or what --config uses)',
      ).choices(['github', 'gitlab']),
    )
    .option('--port <port>', "the receiver's port; 0 picks a free one", DEFAULT_RECEIVER_PORT)
    .option('--dashboard-port <port>', "the dashboard's port on 127.0.0.1; 0 picks a free one", '0')
    .option('--no-dashboard', 'do not serve the dashboard')
    .option('--data-dir <dir>', 'the data directory (wiped at start unless --no-fresh)', '.data/demo')
    .option('--release-every <duration>', 'time between two releases to the first environment (e.g. 20s, 1m)', '20s')
    .option('--merge-after <duration>', 'time before the simulated reviewers merge a promotion pull request', '3s')
    .option('--keep-releasing', 'release on schedule even while a release waits for approval or is being promoted')
    .option('--fresh', 'wipe the data directory first (the default)')
    .option('--no-fresh', 'keep the data directory of a previous run')
    .option('--verbose', "also show the controller's info logs")
    .option('--new-store', 'with --no-fresh: start with an empty store when dynamodb/ is missing')
    .option('--new-master-key', 'with --no-fresh: make a new master key when master-key.json is missing')
    .addHelpText(
      'after',
      '\nEverything runs in this process; nothing outside it is touched. Under the banner, once everything runs, comes\n' +
        "the dashboard's URL (a web page of the same state, on 127.0.0.1 only). From a second terminal, in the same\n" +
        'directory:\n' +
        '  pipelinectl status --data-dir .data/demo\n' +
        '  pipelinectl approve flux-system/podinfo staging --revision <version> --data-dir .data/demo\n' +
        'The same on a simulated GitLab, with merge requests: pipelinectl demo --git-host gitlab\n' +
        'For real clusters and GitHub or GitLab: pipelinectl serve --config ./my-config (see examples/demo/README.md).',
    )
    .action(async (options: DemoOptions) => {
      const demo = await loadDemo();
      const port = parsePort(options.port);
      const example = DEFAULT_EXAMPLES[options.gitHost ?? 'github'];
      // A configuration of one's own does not start with the example's repository files.
      const repositoryPath = options.repository ?? (options.config === undefined ? example.repository : undefined);
      const settings: DemoSettings = {
        releaseEveryMs: parseDuration(options.releaseEvery, '--release-every'),
        mergeAfterMs: parseDuration(options.mergeAfter, '--merge-after'),
        port,
        configPath: options.config ?? example.config,
        ...(repositoryPath === undefined ? {} : { repositoryPath }),
        ...(options.gitHost === undefined ? {} : { gitHost: options.gitHost }),
        dataDir: options.dataDir,
        keepReleasing: options.keepReleasing === true,
        fresh: options.fresh !== false,
        verbose: options.verbose === true,
        newStore: options.newStore === true,
        newMasterKey: options.newMasterKey === true,
      };
      if (!options.dashboard) return runReportingErrors(demo, settings);
      const dashboardPort = parseDashboardPort(options.dashboardPort, port);
      const dashboard = await startDashboardBesideLocalMode(options.dataDir, dashboardPort, STDERR_WARNINGS);
      try {
        const companion = {
          line: `dashboard ${dashboard.ownerUrl}  (open it in a browser to watch the promotions)`,
          attach: async () => {
            await dashboard.attach();
            // Once the local mode listens and the pages read through it, not before: a demo that cannot start (its
            // port in use) never shows a URL. Before the demo's screen: the browser is where a newcomer best
            // watches the promotions flow.
            process.stdout.write(`dashboard: ${dashboard.ownerUrl}  (open it in a browser to watch the promotions)\n`);
            return () => dashboard.close();
          },
        };
        await runReportingErrors(demo, { ...settings, companion });
      } finally {
        await dashboard.close();
      }
    });
}

/** Runs the demo; why it cannot run ends as a command error, with the demo's message and exit code. */
async function runReportingErrors(
  { runDemo, DemoError }: Awaited<ReturnType<typeof loadDemo>>,
  settings: DemoSettings,
): Promise<void> {
  try {
    await runDemo(settings);
  } catch (error) {
    if (error instanceof DemoError) throw new CliError(error.message, error.exitCode);
    throw error;
  }
}

/** lib/demo, or the command error saying where the demo runs when this pipelinectl was installed without it. */
async function loadDemo() {
  if (!existsSync(DEFAULT_EXAMPLES.github.config)) {
    throw new CliError(
      'pipelinectl demo runs from a clone of the pipeline-controller repository, not from the installed package ' +
        '(which leaves the simulation out): in the clone, `npm ci && npm start`',
    );
  }
  const [{ runDemo }, { DemoError }] = await Promise.all([
    import('../../demo/run.js'),
    import('../../demo/demo-error.js'),
  ]);
  return { runDemo, DemoError };
}
