// pipelinectl demo (`npm start`): the local mode, exactly as `pipelinectl serve` runs it, on examples/demo, against a
// simulated world (lib/testing): one fake Kubernetes API server per GitopsCluster with a simulated Flux on it, a
// fake GitHub holding the fleet repository with a bot that merges promotion pull requests, and a simulated CI that
// releases a new version to the first environment every little while. Nothing outside this process is touched.
//
// The terminal shows the pipelines as they change: on a TTY a screen redrawn every second, otherwise one line per
// change. `pipelinectl status` and `approve` work against it from a second terminal, through the data directory.
//
// Decisions:
// - The data directory is wiped at each start (--fresh is the default): the simulated clusters and GitHub live in
//   memory and start anew at 6.9.0, so promotion records and approvals left from a previous run would describe a
//   world that no longer exists (a succeeded promotion of 6.9.1 would never be made again). `--no-fresh` keeps it.
//   Only a directory the demo made (it holds DEMO_MARKER) or an empty one is ever wiped.
// - The merge bot merges every open promotion pull request after --merge-after, whatever its environment: for a
//   manual environment the product asks for the approval before it opens the pull request, so the approval is the
//   human step; the review is simulated.
// - CI holds a due release while the previous one is still on its way (the first environment has not run it yet,
//   an approval waits, or a later environment is being promoted), so that every release you approve reaches the
//   last environment: the product promotes only the current candidate, and a new release would overtake it.
//   `--keep-releasing` releases on schedule regardless, as a busy CI would (approval requests then move to the newest
//   version before anyone approves them).
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { ConfigError, loadConfiguration, type Configuration } from '../../config/index.js';
import { sameRevision } from '../../flux/revision.js';
import { readServeInfo } from '../../local/data-dir.js';
import { startLocalMode, type LocalMode } from '../../local/mode.js';
import { objectKeyString, type ObjectKey } from '../../pipeline/model.js';
import type { Store } from '../../store/port.js';
import { MergeBot, ReleaseGenerator } from '../../testing/demo-github.js';
import { DemoConfigurationError, startDemoWorld, type DemoWorld } from '../../testing/demo-world.js';
import { FluxSimulator, type SimulatedTargetState } from '../../testing/flux-simulator.js';
import { CliError } from '../errors.js';
import { formatDuration, parseDuration, parsePort } from '../flags.js';
import { createCliLogger } from '../log.js';
import { loadPipelineView, type PipelineView } from '../pipeline-view.js';

const DEFAULT_CONFIG = fileURLToPath(new URL('../../../examples/demo', import.meta.url));
const INITIAL_VERSION = '6.9.0';
/** Written into the data directories the demo makes; only those (or empty ones) are ever wiped. */
const DEMO_MARKER = '.pipelinectl-demo';
const POLL_INTERVAL_MS = 30_000;
const REFRESH_MS = 1000;
const ACTIVITY_LINES = 10;
const BANNER = 'SIMULATION — no real cluster or GitHub is touched';

interface DemoOptions {
  config?: string;
  port: string;
  dataDir: string;
  releaseEvery: string;
  mergeAfter: string;
  keepReleasing?: boolean;
  fresh?: boolean;
  verbose?: boolean;
}

export function register(program: Command): void {
  program
    .command('demo')
    .description(
      'Run the local mode against simulated clusters, Flux, GitHub and CI: no cluster or GitHub account needed',
    )
    .option('--config <path>', 'the configuration to simulate (default: examples/demo)')
    .option('--port <port>', "the receiver's port; 0 picks a free one", '8080')
    .option('--data-dir <dir>', 'the data directory (wiped at start unless --no-fresh)', '.data/demo')
    .option('--release-every <duration>', 'time between two releases to the first environment (e.g. 20s, 1m)', '20s')
    .option('--merge-after <duration>', 'time before the simulated reviewers merge a promotion pull request', '3s')
    .option('--keep-releasing', 'release on schedule even while a release waits for approval or is being promoted')
    .option('--fresh', 'wipe the data directory first (the default)')
    .option('--no-fresh', 'keep the data directory of a previous run')
    .option('--verbose', "also show the controller's info logs")
    .addHelpText(
      'after',
      '\nEverything runs in this process; nothing outside it is touched. From a second terminal, in the same directory:\n' +
        '  pipelinectl status --data-dir .data/demo\n' +
        '  pipelinectl approve flux-system/podinfo staging --revision <version> --data-dir .data/demo\n' +
        'For real clusters and GitHub: pipelinectl serve --config ./my-config (see examples/demo/README.md).',
    )
    .action(async (options: DemoOptions) => {
      await runDemo(options);
    });
}

// ---------------------------------------------------------------- running

async function runDemo(options: DemoOptions): Promise<void> {
  const releaseEveryMs = parseDuration(options.releaseEvery, '--release-every');
  const mergeAfterMs = parseDuration(options.mergeAfter, '--merge-after');
  const port = parsePort(options.port);
  const configPath = options.config ?? DEFAULT_CONFIG;
  const loaded = await loadConfiguration(configPath);
  if (!loaded.ok) throw new ConfigError(loaded.problems);
  const { configuration } = loaded;
  await prepareDataDir(options.dataDir, options.fresh !== false);

  const screen = new Screen(process.stdout, process.stdout.isTTY === true);
  const signals = new StopSignal();
  const cleanup: (() => Promise<void>)[] = [];
  try {
    let world: DemoWorld;
    try {
      world = await startDemoWorld(configuration, INITIAL_VERSION);
    } catch (error) {
      if (error instanceof DemoConfigurationError) {
        throw new CliError(`${displayPath(configPath)} cannot be simulated:\n${error.message}`);
      }
      throw error;
    }
    cleanup.push(() => world.stop());
    const activity = new Activity(screen);
    const mode = await startMode(options, port, configPath, world, activity);
    cleanup.push(() => mode.stop());
    const { repository } = world;

    const simulator = new FluxSimulator({
      github: world.github,
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
      github: world.github,
      repository,
      delayMs: mergeAfterMs,
      onActivity: (event) => activity.add('GitHub', `${repository.owner}/${repository.name}: ${event.message}`),
    }).start();
    cleanup.push(() => bot.stop());

    const reader = new PipelineReader(mode.store, configuration);
    const generators = new Map<string, ReleaseGenerator>();
    for (const [pipeline, files] of world.sourceFiles) {
      const generator = new ReleaseGenerator({
        github: world.github,
        repository,
        files,
        everyMs: releaseEveryMs,
        hold: options.keepReleasing ? undefined : (current) => reader.holdReason(pipeline, current),
        onActivity: (event) => activity.add('CI', `${pipeline}: ${event.message}`),
      }).start();
      generators.set(pipeline, generator);
      cleanup.push(() => generator.stop());
    }

    await mode.poll(); // the first statuses, without waiting for the first interval
    const context: ViewContext = {
      options,
      configPath,
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
    };
    screen.start(introduction(context));
    await refreshUntil(signals.stopped, async () => {
      try {
        activity.collect(await reader.audit());
        screen.render(await view(context));
      } catch (error) {
        activity.add('demo', `cannot read the state: ${error instanceof Error ? error.message : String(error)}`);
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

async function startMode(
  options: DemoOptions,
  port: number,
  configDir: string,
  world: DemoWorld,
  activity: Activity,
): Promise<LocalMode> {
  // The controller's log joins the activity list: warnings and errors, and with --verbose its info lines too.
  const logger = createCliLogger({
    format: 'text',
    level: options.verbose ? 'info' : 'warn',
    stream: { write: (line: string) => activity.add('controller', line.trimEnd().replace(/^\d\d:\d\d:\d\d /, '')) },
  });
  try {
    return await startLocalMode({
      configDir,
      dataDir: options.dataDir,
      port,
      pollIntervalMs: POLL_INTERVAL_MS,
      githubApiUrl: world.github.url,
      secrets: world.secrets,
      logger,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new CliError(`port ${port} is in use: pick another with --port (0 picks a free one)`);
    }
    throw error;
  }
}

async function prepareDataDir(dataDir: string, fresh: boolean): Promise<void> {
  const running = await readServeInfo(dataDir);
  if (running) {
    throw new CliError(
      `a pipelinectl serve or demo (pid ${running.pid}) is running on ${dataDir}: stop it, or pick another --data-dir`,
    );
  }
  let entries: string[] = [];
  try {
    entries = await readdir(dataDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const ours = entries.length === 0 || entries.includes(DEMO_MARKER);
  if (fresh) {
    if (!ours) {
      throw new CliError(
        `${dataDir} is not empty and was not made by pipelinectl demo, so it is not wiped: pick another --data-dir`,
      );
    }
    await rm(dataDir, { recursive: true, force: true });
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (ours) {
    await writeFile(join(dataDir, DEMO_MARKER), 'The data directory of pipelinectl demo: wiped at each start.\n');
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

/** Resolves `stopped` on the first SIGINT or SIGTERM; a second one ends the process at once. */
class StopSignal {
  readonly stopped: Promise<void>;
  private readonly handler: () => void;
  private received = false;

  constructor() {
    let resolve: () => void = () => undefined;
    this.stopped = new Promise((r) => (resolve = r));
    this.handler = () => {
      if (this.received) process.exit(130);
      this.received = true;
      resolve();
    };
    process.on('SIGINT', this.handler);
    process.on('SIGTERM', this.handler);
  }

  dispose(): void {
    process.off('SIGINT', this.handler);
    process.off('SIGTERM', this.handler);
  }
}

// ---------------------------------------------------------------- what the controller knows

/** The pipelines as `pipelinectl status` sees them (the stored state and the decision on it), and their audit. */
class PipelineReader {
  private readonly keys: ObjectKey[];

  constructor(
    private readonly store: Store,
    configuration: Configuration,
  ) {
    this.keys = configuration.pipelines.map((pipeline) => ({ namespace: pipeline.namespace, name: pipeline.name }));
  }

  async views(): Promise<PipelineView[]> {
    const now = new Date();
    const views = await Promise.all(this.keys.map((key) => loadPipelineView(this.store, key, now)));
    return views.filter((view) => view !== undefined);
  }

  /** Why CI should not release yet: the last release is still on its way through the pipeline. */
  async holdReason(pipeline: string, released: string | undefined): Promise<string | undefined> {
    const key = this.keys.find((candidate) => objectKeyString(candidate) === pipeline);
    const view = key && (await loadPipelineView(this.store, key, new Date()));
    if (!view) return `${pipeline} is not applied yet`;
    const { candidate } = view.decision;
    if (released !== undefined && (candidate === undefined || !sameRevision(candidate, released))) {
      return `waiting until ${view.environments[0]?.name ?? 'the first environment'} runs ${released}`;
    }
    for (const env of view.environments) {
      if (env.state === 'waiting-approval') return `${env.name} waits for approval of ${candidate}`;
      if (env.state === 'promoting' || env.state === 'promoted' || env.state === 'in-progress') {
        return `${env.name} is being promoted to ${candidate}`;
      }
    }
    return undefined;
  }

  /** The audit trail of every pipeline, newest first. */
  async audit(): Promise<{ at: string; message: string; id: string }[]> {
    const pages = await Promise.all(this.keys.map((key) => this.store.listAudit(key, { limit: 20 })));
    return pages.flatMap((page) =>
      page.items.map((entry) => {
        const pipeline = objectKeyString(entry.pipeline);
        const env = entry.env === undefined ? '' : ` ${entry.env}`;
        return {
          at: entry.at,
          message: `${pipeline}${env}: ${entry.message}`,
          id: `${pipeline} ${entry.at} ${entry.type} ${entry.env ?? ''} ${entry.revision ?? ''}`,
        };
      }),
    );
  }
}

// ---------------------------------------------------------------- the view

interface ViewContext {
  options: DemoOptions;
  configPath: string;
  receiverUrl: string;
  world: DemoWorld;
  simulator: FluxSimulator;
  bot: MergeBot;
  generators: Map<string, ReleaseGenerator>;
  reader: PipelineReader;
  activity: Activity;
  releaseEveryMs: number;
  mergeAfterMs: number;
  /** How to run pipelinectl from here: `pipelinectl`, or `node bin/pipelinectl.js`. */
  command: string;
}

/**
 * One line of the view. Without a TTY, a line with a `key` is printed (as `log`, else `text`) each time that text
 * changes. `live` is a part shown on a TTY only (countdowns), which does not count as a change.
 */
interface Line {
  text: string;
  key?: string;
  log?: string;
  live?: string;
}

function introduction(context: ViewContext): string[] {
  const { world, options } = context;
  const { owner, name } = world.repository;
  return [
    `pipelinectl demo: pipeline-controller's local mode (the same code as on AWS) on ${displayPath(context.configPath)}`,
    `against ${world.clusters.size} simulated leaf clusters running a simulated Flux, a simulated GitHub repository ` +
      `${owner}/${name} whose promotion pull requests a bot merges after ${formatDuration(context.mergeAfterMs)}, and a ` +
      `simulated CI releasing a new version every ${formatDuration(context.releaseEveryMs)}.`,
    `receiver ${context.receiverUrl}  ·  data directory ${options.dataDir}  ·  Ctrl-C stops everything`,
    `from a second terminal: ${context.command} status --data-dir ${shellQuote(options.dataDir)}`,
  ];
}

async function view(context: ViewContext): Promise<Line[]> {
  const { world, simulator, bot, generators, reader, activity, options } = context;
  const now = Date.now();
  const lines: Line[] = [];
  const targets = simulator.states();
  const views = await reader.views();
  for (const { key, decision, environments, stored } of views) {
    const pipeline = objectKeyString(key);
    const app = stored.pipeline.appRef.name;
    lines.push({ text: `${pipeline}${decision.candidate ? `  (candidate ${decision.candidate})` : ''}` });
    const width = Math.max(...environments.map((env) => env.name.length));
    const indent = `  ${''.padEnd(width)}  ${''.padEnd(8)} `;
    for (const [index, env] of environments.entries()) {
      const tag = index === 0 ? 'source' : env.manual ? 'manual' : 'auto';
      const summary = env.targets
        .map((target) => {
          const state = targets.find(
            (t) =>
              objectKeyString(t.cluster) === objectKeyString(target.cluster) &&
              t.namespace === target.namespace &&
              t.name === app,
          );
          return state ? targetText(state) : `${target.cluster.name}/${target.namespace} ?`;
        })
        .join(', ');
      lines.push({ text: `  ${env.name.padEnd(width)}  ${`(${tag})`.padEnd(8)} ${summary}` });
      lines.push({
        text: `${indent}${env.message}`,
        key: `env ${pipeline} ${env.name}`,
        log: `${pipeline} ${env.name}: ${env.message}`,
      });
      const waiting = env.approval?.approvedAt === undefined ? env.approval : undefined;
      if (waiting) {
        const approve =
          `${context.command} approve ${pipeline} ${env.name} --revision ${waiting.revision} ` +
          `--data-dir ${shellQuote(options.dataDir)}`;
        lines.push({
          text: `${indent}>> to approve ${waiting.revision}, run in a second terminal:  ${approve}`,
          key: `approval ${pipeline} ${env.name}`,
          log: `${pipeline} ${env.name} waits for approval of ${waiting.revision}; to approve it, run: ${approve}`,
        });
      }
    }
    const generator = generators.get(pipeline);
    if (generator) {
      const ci = generator.state();
      const held = ci.heldBecause === undefined ? '' : `; next release held: ${ci.heldBecause}`;
      const due = Math.max(0, Math.ceil((ci.dueAt - now) / 1000));
      lines.push({
        text: `  CI: ${app} ${ci.current ?? '?'} is the latest release${held}`,
        key: `ci ${pipeline}`,
        log: `CI: ${pipeline}: ${app} ${ci.current ?? '?'} is the latest release${held}`,
        ...(held ? {} : { live: `; next release in ${due}s` }),
      });
    }
    lines.push({ text: '' });
  }
  if (views.length === 0) lines.push({ text: 'waiting for the pipelines to be applied…' }, { text: '' });

  const { owner, name } = world.repository;
  const pulls = world.github.pulls(owner, name).reverse().slice(0, 6);
  lines.push({ text: `pull requests on ${owner}/${name} (simulated GitHub)` });
  if (pulls.length === 0) lines.push({ text: '  none yet' });
  for (const pull of pulls) {
    const state = pull.merged ? 'merged' : pull.state;
    const mergesAt = pull.state === 'open' ? bot.mergesAt(pull.number) : undefined;
    const live =
      mergesAt === undefined
        ? {}
        : { live: `  (the bot merges it in ${Math.max(0, Math.ceil((mergesAt - now) / 1000))}s)` };
    lines.push({
      text: `  #${String(pull.number).padEnd(3)} ${state.padEnd(7)} ${pull.title}`,
      key: `pull ${pull.number}`,
      log: `pull request #${pull.number} on ${owner}/${name} ${state}: ${pull.title}`,
      ...live,
    });
  }
  lines.push({ text: '' }, { text: 'recent activity' }, ...activity.recent().map((text) => ({ text: `  ${text}` })));
  return lines;
}

function targetText(target: SimulatedTargetState): string {
  const where = `${target.cluster.name}/${target.namespace}`;
  const runs = target.status?.revision ?? 'nothing';
  if (target.upgradingTo !== undefined) return `${where} ${runs} → ${target.upgradingTo} (upgrading)`;
  if (!target.status) return `${where} no HelmRelease`;
  return `${where} ${runs} ${target.status.healthy ? 'healthy' : `(${target.status.reason})`}`;
}

/** What happened lately: the simulated actors' doings and the controller's audit trail. */
class Activity {
  private readonly lines: string[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly screen: Screen) {}

  add(source: string, message: string, at = new Date()): void {
    const line = `${clock(at)}  ${source.padEnd(10)} ${message}`;
    this.lines.push(line);
    if (this.lines.length > ACTIVITY_LINES) this.lines.shift();
    this.screen.event(line);
  }

  /** Adds the audit entries not seen yet, oldest first. */
  collect(entries: readonly { at: string; message: string; id: string }[]): void {
    const fresh = entries.filter((entry) => !this.seen.has(entry.id)).sort((a, b) => a.at.localeCompare(b.at));
    for (const entry of fresh) {
      this.seen.add(entry.id);
      this.add('controller', entry.message, new Date(entry.at));
    }
  }

  recent(): string[] {
    return [...this.lines];
  }
}

/**
 * The terminal. On a TTY the view is redrawn in place; otherwise the introduction is printed once, then each
 * activity line as it happens and each keyed view line when its text changes.
 */
class Screen {
  private intro: string[] = [];
  private readonly printed = new Map<string, string>();
  private drawn = false;

  /** Prints the banner at once, before anything else. */
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty: boolean,
  ) {
    out.write(`${BANNER}\n${tty ? 'starting the simulated world and the local mode…\n' : ''}`);
  }

  /** Shows the introduction: under the banner of each redraw on a TTY, printed once otherwise. */
  start(intro: string[]): void {
    this.intro = intro;
    this.out.write(this.tty ? '\x1b[?25l\x1b[2J\x1b[H' : `${intro.join('\n')}\n\n`);
  }

  render(lines: readonly Line[]): void {
    if (this.tty) {
      const banner = process.env.NO_COLOR ? BANNER : `\x1b[1;30;43m ${BANNER} \x1b[0m`;
      const all = [banner, ...this.intro, '', ...lines.map((line) => line.text + (line.live ?? ''))];
      this.out.write(`\x1b[H${all.map((line) => `${line}\x1b[K`).join('\n')}\n\x1b[J`);
      this.drawn = true;
      return;
    }
    for (const line of lines) {
      const text = line.log ?? line.text.trim();
      if (line.key === undefined || this.printed.get(line.key) === text) continue;
      this.printed.set(line.key, text);
      if (text !== '') this.out.write(`${clock(new Date())}  ${text}\n`);
    }
  }

  /** An activity line: printed at once without a TTY (on a TTY it shows in the next redraw). */
  event(line: string): void {
    if (!this.tty) this.out.write(`${line}\n`);
  }

  note(message: string): void {
    this.out.write(`${message}\n`);
  }

  stopping(): void {
    this.out.write(this.tty && this.drawn ? '\nstopping the demo…\n' : 'stopping the demo…\n');
  }

  finish(): void {
    if (this.tty) this.out.write('\x1b[?25h');
  }
}

// ---------------------------------------------------------------- small helpers

/** `pipelinectl` when it is on the PATH, else `node <path to bin/pipelinectl.js>` (as under `npm start`). */
function cliCommand(): string {
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && existsSync(join(dir, 'pipelinectl')));
  const script = process.argv[1];
  if (onPath || script === undefined) return 'pipelinectl';
  return `node ${shellQuote(displayPath(script))}`;
}

/** A path relative to the working directory when it is below it, else as it is. */
function displayPath(path: string): string {
  const below = relative(process.cwd(), path);
  return below !== '' && !below.startsWith('..') && !isAbsolute(below) ? below : path;
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function clock(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
