// What the demo shows: its introduction, then for each pipeline its environments (each target as its simulated
// cluster runs it, the controller's message, the command that approves a waiting release) and its CI, the pull
// requests on the simulated GitHub (merge requests on the simulated GitLab), and the recent activity.
import type { ConfigSourceDocument } from '../config/index.js';
import { keyOfMetadata, objectKeyString } from '../pipeline/model.js';
import { formatDuration } from '../util/duration.js';
import type { Activity } from './activity.js';
import type { FluxSimulator } from './flux-simulator.js';
import type { MergeBot } from './merge-bot.js';
import type { PipelineReader } from './pipeline-reader.js';
import type { ReleaseGenerator } from './release-generator.js';
import type { Line } from './screen.js';
import { displayPath, shellQuote } from './shell.js';
import { targetSummary } from './target-summary.js';
import type { DemoWorld } from './world.js';

export interface ViewContext {
  dataDir: string;
  configPath: string;
  /** The configuration's ConfigSources: where its Pipelines come from. */
  configSources: readonly ConfigSourceDocument[];
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
  /** What the caller serves beside the demo (the dashboard's URL), if anything. */
  companionLine?: string;
}

export function introduction(context: ViewContext): string[] {
  const { world, dataDir } = context;
  const { hostName, path, pullRequestWord } = world.repository;
  return [
    `pipelinectl demo: pipeline-controller's local mode (the same code as on AWS) on ${displayPath(context.configPath)}`,
    `against ${world.clusters.size} simulated leaf clusters running a simulated Flux, a simulated ${hostName} ` +
      `repository ${path} whose promotion ${pullRequestWord}s a bot merges after ` +
      `${formatDuration(context.mergeAfterMs)}, and a simulated CI releasing a new version every ` +
      `${formatDuration(context.releaseEveryMs)}.`,
    ...context.configSources.map(
      ({ metadata, spec }) =>
        `pipelines from Git: ConfigSource ${objectKeyString(keyOfMetadata(metadata))} applies ${spec.path ?? '.'}/ ` +
        `of ${path} (${spec.branch}) at each new commit`,
    ),
    `receiver ${context.receiverUrl}  ·  data directory ${dataDir}  ·  Ctrl-C stops everything`,
    `from a second terminal: ${context.command} status --data-dir ${shellQuote(dataDir)}`,
    ...(context.companionLine === undefined ? [] : [context.companionLine]),
  ];
}

export async function view(context: ViewContext): Promise<Line[]> {
  const { world, simulator, bot, generators, reader, activity, dataDir } = context;
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
          return state ? targetSummary(state) : `${target.cluster.name}/${target.namespace} ?`;
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
          `--data-dir ${shellQuote(dataDir)}`;
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

  const { repository } = world;
  const { path, pullRequestWord } = repository;
  const pulls = repository.pullRequests().reverse().slice(0, 6);
  lines.push({ text: `${pullRequestWord}s on ${path} (simulated ${repository.hostName})` });
  if (pulls.length === 0) lines.push({ text: '  none yet' });
  for (const pull of pulls) {
    const { state } = pull;
    const reference = repository.reference(pull.id);
    const mergesAt = state === 'open' ? bot.mergesAt(pull.id) : undefined;
    const live =
      mergesAt === undefined
        ? {}
        : { live: `  (the bot merges it in ${Math.max(0, Math.ceil((mergesAt - now) / 1000))}s)` };
    lines.push({
      text: `  ${reference.padEnd(4)} ${state.padEnd(7)} ${pull.title}`,
      key: `pull ${pull.id}`,
      log: `${pullRequestWord} ${reference} on ${path} ${state}: ${pull.title}`,
      ...live,
    });
  }
  lines.push({ text: '' }, { text: 'recent activity' }, ...activity.recent().map((text) => ({ text: `  ${text}` })));
  return lines;
}
