// `pipelinectl demo`: the local mode, exactly as `pipelinectl serve` runs it, against the simulated world (world.ts):
// one fake Kubernetes API server per GitopsCluster with a simulated Flux on it, a fake GitHub or GitLab (whichever
// the configuration's pull-request promotions name) holding the fleet repository with a bot that merges promotion
// pull or merge requests, and a simulated CI that releases a new version to the first environment every little
// while. Nothing outside this process is touched. The fakes are lib/testing's, the ones the tests and benchmarks run
// on. The Pipelines may come from Git, as for real: a ConfigSource of the configuration names a folder of the fleet
// repository, which starts with the files of `repositoryPath`, and the controller's first poll applies it.
//
// The terminal shows the pipelines as they change (screen.ts). `pipelinectl status` and `approve` work against it
// from a second terminal, through the data directory.
import { ConfigError, loadConfiguration, type Configuration } from '../config/index.js';
import { startLocalMode, type LocalMode } from '../local/mode.js';
import { createConsoleLogger } from '../logging/console-logger.js';
import { waitFor } from '../testing/wait-for.js';
import { Activity } from './activity.js';
import { prepareDataDir, storeSimulatedSecrets } from './data-dir.js';
import { DemoError } from './demo-error.js';
import { FLEET_HOST_NAMES, type FleetHostType } from './fleet-repository.js';
import { FluxSimulator } from './flux-simulator.js';
import { MergeBot } from './merge-bot.js';
import { PipelineReader } from './pipeline-reader.js';
import { ReleaseGenerator } from './release-generator.js';
import { readRepositoryFiles } from './repository-files.js';
import { Screen } from './screen.js';
import { cliCommand, displayPath } from './shell.js';
import { StopSignal } from './stop-signal.js';
import { introduction, view, type ViewContext } from './view.js';
import { DemoConfigurationError, fleetPath, planWorld, type WorldPlan } from './world-plan.js';
import { startPlannedWorld, type DemoWorld } from './world.js';
import { errorMessage } from '../util/error-message.js';

const INITIAL_VERSION = '6.9.0';
const POLL_INTERVAL_MS = 30_000;
const REFRESH_MS = 1000;
/** How long the first screen waits for the ConfigSources' first syncs. */
const FIRST_SYNC_MS = 10_000;

/** The demo's flags, parsed. */
export interface DemoSettings {
  /** The configuration to simulate (a directory or a file). */
  configPath: string;
  /** A directory whose files the simulated repository starts with (what the configuration's ConfigSources read). */
  repositoryPath?: string;
  /**
   * The Git host asked for (`--git-host`), checked against the one the configuration's pull-request promotions
   * name. Undefined: whichever they name.
   */
  gitHost?: FleetHostType;
  /** The receiver's port; 0 picks a free one. */
  port: number;
  dataDir: string;
  releaseEveryMs: number;
  mergeAfterMs: number;
  /** Release on schedule even while a release waits for approval or is being promoted. */
  keepReleasing: boolean;
  /** Wipe the data directory first. */
  fresh: boolean;
  /** Also show the controller's info logs. */
  verbose: boolean;
  /** With --no-fresh: start with an empty store when dynamodb/ is missing (`--new-store`). */
  newStore?: boolean;
  /** With --no-fresh: make a new master key when master-key.json is missing (`--new-master-key`). */
  newMasterKey?: boolean;
  /** A web view served beside the demo (the CLI's dashboard), named in the introduction. */
  companion?: DemoCompanion;
}

/**
 * Something the caller serves over the demo's data directory (the CLI's dashboard: lib/demo does not know the CLI).
 * `attach` is called once the local mode runs, so that it reads through it; what it returns stops it, before the
 * local mode stops.
 */
export interface DemoCompanion {
  /** Shown in the introduction, e.g. `dashboard http://127.0.0.1:PORT/`. */
  line: string;
  attach(): Promise<() => Promise<void>>;
}

/** Runs the demo until SIGINT or SIGTERM, then stops everything it started, in reverse order. */
export async function runDemo(settings: DemoSettings): Promise<void> {
  const { configPath, releaseEveryMs, mergeAfterMs } = settings;
  const loaded = await loadConfiguration(configPath);
  if (!loaded.ok) throw new ConfigError(loaded.problems);
  const { configuration } = loaded;
  // Before the data directory is touched: a configuration that cannot be simulated leaves it as it was.
  const repositoryFiles =
    settings.repositoryPath === undefined ? {} : await readRepositoryFiles(settings.repositoryPath);
  const plan = simulationPlan(settings, configuration, repositoryFiles);
  await prepareDataDir(settings.dataDir, settings.fresh);

  const screen = new Screen(process.stdout, process.stdout.isTTY === true, FLEET_HOST_NAMES[plan.repository.type]);
  const signals = new StopSignal();
  const cleanup: (() => Promise<void>)[] = [];
  try {
    const world = await startPlannedWorld(plan, INITIAL_VERSION);
    cleanup.push(() => world.stop());
    const activity = new Activity(screen);
    const mode = await startMode(settings, world, activity);
    cleanup.push(() => mode.stop());
    await storeSimulatedSecrets(settings.dataDir, world.secrets);
    if (settings.companion) cleanup.push(await settings.companion.attach());
    const { repository } = world;

    const simulator = new FluxSimulator({
      repository,
      targets: world.targets,
      receiverUrl: mode.receiverUrl,
      masterKey: mode.masterKeys.current,
      onActivity: (event) => {
        if (event.type !== 'event-sent') activity.add('Flux', event.message);
      },
    }).start();
    cleanup.push(() => simulator.stop());

    const bot = new MergeBot({
      repository,
      delayMs: mergeAfterMs,
      onActivity: (event) => activity.add(repository.hostName, `${repository.path}: ${event.message}`),
    }).start();
    cleanup.push(() => bot.stop());

    const reader = new PipelineReader(mode.store, plan.pipelines, plan.configSources);
    const generators = new Map<string, ReleaseGenerator>();
    for (const [pipeline, files] of world.sourceFiles) {
      const generator = new ReleaseGenerator({
        repository,
        files,
        everyMs: releaseEveryMs,
        hold: settings.keepReleasing ? undefined : (current) => reader.holdReason(pipeline, current),
        onActivity: (event) => activity.add('CI', `${pipeline}: ${event.message}`),
      }).start();
      generators.set(pipeline, generator);
      cleanup.push(() => generator.stop());
    }

    await mode.poll(); // the first statuses and syncs, without waiting for the first interval
    // The first screen shows the Pipelines the ConfigSources apply. A sync that takes longer is shown when it ends;
    // one that fails says why in the activity.
    await waitFor('the first sync of the ConfigSources', () => reader.sourcesSynced(), {
      timeoutMs: FIRST_SYNC_MS,
    }).catch(() => undefined);
    const context: ViewContext = {
      dataDir: settings.dataDir,
      configPath,
      configSources: configuration.configSources.map((source) => source.document),
      receiverUrl: mode.receiverUrl,
      world,
      simulator,
      bot,
      generators,
      reader,
      activity,
      releaseEveryMs,
      mergeAfterMs,
      command: cliCommand(),
      companionLine: settings.companion?.line,
    };
    screen.start(introduction(context));
    await refreshUntil(signals.stopped, async () => {
      try {
        activity.collect(await reader.audit());
        screen.render(await view(context));
      } catch (error) {
        activity.add('demo', `cannot read the state: ${errorMessage(error)}`);
      }
    });
    screen.stopping();
  } finally {
    for (const stop of cleanup.reverse()) {
      await stop().catch((error: unknown) => screen.note(`while stopping: ${String(error)}`));
    }
    signals.dispose();
    screen.finish();
  }
}

/** What to simulate for the configuration, or a DemoError saying why it cannot be (as asked for). */
function simulationPlan(
  settings: DemoSettings,
  configuration: Configuration,
  repositoryFiles: Readonly<Record<string, string>>,
): WorldPlan {
  const where = displayPath(settings.configPath);
  let plan: WorldPlan;
  try {
    plan = planWorld(configuration, repositoryFiles);
  } catch (error) {
    if (error instanceof DemoConfigurationError) throw new DemoError(`${where} cannot be simulated:\n${error.message}`);
    throw error;
  }
  const { gitHost } = settings;
  const { repository } = plan;
  if (gitHost !== undefined && gitHost !== repository.type) {
    throw new DemoError(
      `--git-host ${gitHost}, but ${where} promotes through ${FLEET_HOST_NAMES[repository.type]} ` +
        `(${fleetPath(repository)}): ` +
        `the configuration's pull-request type decides the host; drop --git-host, or give a configuration whose ` +
        `pull-request blocks say \`type: ${gitHost}\``,
    );
  }
  return plan;
}

async function startMode(settings: DemoSettings, world: DemoWorld, activity: Activity): Promise<LocalMode> {
  // The controller's log joins the activity list: warnings and errors, and with --verbose its info lines too.
  const logger = createConsoleLogger({
    format: 'text',
    level: settings.verbose ? 'info' : 'warn',
    stream: { write: (line: string) => activity.add('controller', line.trimEnd().replace(/^\d\d:\d\d:\d\d /, '')) },
  });
  try {
    return await startLocalMode({
      configDir: settings.configPath,
      dataDir: settings.dataDir,
      port: settings.port,
      pollIntervalMs: POLL_INTERVAL_MS,
      ...world.hostApi,
      secrets: world.secrets,
      logger,
      newStore: settings.newStore,
      newMasterKey: settings.newMasterKey,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new DemoError(`port ${settings.port} is in use: pick another with --port (0 picks a free one)`);
    }
    throw error;
  }
}

/** Calls `step` every REFRESH_MS until `stopped` resolves. */
async function refreshUntil(stopped: Promise<void>, step: () => Promise<void>): Promise<void> {
  let done = false;
  void stopped.then(() => {
    done = true;
  });
  while (!done) {
    await step();
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, REFRESH_MS).unref())]);
  }
}
