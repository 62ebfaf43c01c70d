// The simulated people and machines around the demo's fleet repository on a FakeGitHub:
//
// - `fleetManifest`: a target's HelmRelease manifest as a fleet repository holds it, with the `$promotion` marker
//   of the environment it belongs to;
// - `MergeBot`: the reviewers. It merges every open promotion pull request (`promotion-*` branches) `delayMs` after
//   it first saw it. It does not look at manual environments: the product asks for the approval before it opens the
//   pull request of a manual environment, so a pull request that exists has been approved already;
// - `ReleaseGenerator`: the app's CI. Every `everyMs` it commits the next patch version (6.9.0 → 6.9.1 → …) of the
//   chart to the first environment's manifests on the main branch, unless `hold` gives a reason to wait.
import { inc, valid } from 'semver';
import type { FakeGitHub, FakePullRequest } from './fake-github.js';
import { chartVersionIn, withChartVersion } from './helm-release.js';
import { Loop } from './loop.js';

export interface FleetRepository {
  owner: string;
  name: string;
}

export interface FleetManifestInput {
  namespace: string;
  /** The HelmRelease and chart name. Default `podinfo`. */
  name?: string;
  version: string;
  /** `ns:pipeline:env`: the marker on the version; none for the first environment (CI writes it). */
  marker?: string;
  /** A comment line at the top. */
  comment?: string;
}

/** A HelmRelease manifest as the fleet repository holds it; the chart version carries the environment's marker. */
export function fleetManifest(input: FleetManifestInput): string {
  const name = input.name ?? 'podinfo';
  const marker = input.marker === undefined ? '' : ` # {"$promotion": "${input.marker}"}`;
  return [
    ...(input.comment === undefined ? [] : [`# ${input.comment}`]),
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${input.namespace}`,
    'spec:',
    '  interval: 10m',
    `  releaseName: ${name}`,
    '  chart:',
    '    spec:',
    `      chart: ${name}`,
    `      version: '${input.version}'${marker}`,
    '      sourceRef:',
    '        kind: HelmRepository',
    `        name: ${name}`,
    '        namespace: flux-system',
    '  values:',
    '    replicaCount: 2',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------- the merge bot

export interface MergeBotActivity {
  type: 'merged' | 'merge-failed';
  pull: FakePullRequest;
  message: string;
}

export interface MergeBotOptions {
  github: FakeGitHub;
  repository: FleetRepository;
  /** From first sight of an open pull request to its merge. Default 3000. */
  delayMs?: number;
  /** How often open pull requests are looked at. Default 1000. */
  intervalMs?: number;
  /** Which open pull requests it merges. Default: those whose head branch starts with `promotion-`. */
  accepts?: (pull: FakePullRequest) => boolean;
  onActivity?: (activity: MergeBotActivity) => void;
  now?: () => number;
}

export class MergeBot {
  private readonly delayMs: number;
  private readonly accepts: (pull: FakePullRequest) => boolean;
  private readonly now: () => number;
  /** Open pull request number → when it merges. */
  private readonly due = new Map<number, number>();
  private readonly loop: Loop;

  constructor(private readonly options: MergeBotOptions) {
    this.delayMs = options.delayMs ?? 3000;
    this.accepts = options.accepts ?? ((pull) => pull.head.startsWith('promotion-'));
    this.now = options.now ?? Date.now;
    this.loop = new Loop(options.intervalMs ?? 1000, () => this.tick());
  }

  start(): this {
    this.loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** When the open pull request `number` will be merged (epoch ms), if the bot means to merge it. */
  mergesAt(number: number): number | undefined {
    return this.due.get(number);
  }

  /** Looks at the open pull requests once and merges those that are due. */
  tick(): void {
    const { owner, name } = this.options.repository;
    const now = this.now();
    const open = this.options.github.pulls(owner, name).filter((pull) => pull.state === 'open' && this.accepts(pull));
    for (const number of this.due.keys()) {
      if (!open.some((pull) => pull.number === number)) this.due.delete(number);
    }
    for (const pull of open) {
      const due = this.due.get(pull.number);
      if (due === undefined) {
        this.due.set(pull.number, now + this.delayMs);
        continue;
      }
      if (due > now) continue;
      this.due.delete(pull.number);
      try {
        const sha = this.options.github.merge(owner, name, pull.number);
        this.options.onActivity?.({
          type: 'merged',
          pull: { ...pull, state: 'closed', merged: true, mergeCommitSha: sha },
          message: `merged #${pull.number} ${pull.title}`,
        });
      } catch (error) {
        this.options.onActivity?.({
          type: 'merge-failed',
          pull,
          message: `could not merge #${pull.number}: ${String(error)}`,
        });
      }
    }
  }
}

// ---------------------------------------------------------------- the release generator

export interface ReleaseActivity {
  type: 'released' | 'release-failed';
  version?: string;
  commit?: string;
  message: string;
}

export interface ReleaseGeneratorOptions {
  github: FakeGitHub;
  repository: FleetRepository;
  /** Default `main`. */
  branch?: string;
  /** The first environment's manifests, whose chart version CI sets (the first one's is the current version). */
  files: readonly string[];
  /** At least this long between two releases. */
  everyMs: number;
  /** From `start()` to the first release. Default `min(everyMs, 5000)`. */
  firstAfterMs?: number;
  /** How often it checks whether a release is due. Default 1000. */
  intervalMs?: number;
  /** A reason to wait (the release is made as soon as there is none), or undefined to go ahead. */
  hold?: (current: string | undefined) => Promise<string | undefined> | string | undefined;
  /** The version after `current`. Default: the next patch version. */
  nextVersion?: (current: string) => string;
  onActivity?: (activity: ReleaseActivity) => void;
  now?: () => number;
}

export interface ReleaseGeneratorState {
  /** The version the file names now. */
  current?: string;
  /** When the next release is due (epoch ms). */
  dueAt: number;
  /** Why a due release waits, when it does. */
  heldBecause?: string;
}

export class ReleaseGenerator {
  private readonly now: () => number;
  private readonly branch: string;
  private dueAt = 0;
  private heldBecause?: string;
  private readonly loop: Loop;

  constructor(private readonly options: ReleaseGeneratorOptions) {
    this.now = options.now ?? Date.now;
    this.branch = options.branch ?? 'main';
    this.loop = new Loop(options.intervalMs ?? 1000, () => this.tick());
  }

  start(): this {
    this.dueAt = this.now() + (this.options.firstAfterMs ?? Math.min(this.options.everyMs, 5000));
    this.loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  state(): ReleaseGeneratorState {
    const current = this.current();
    return {
      ...(current === undefined ? {} : { current }),
      dueAt: this.dueAt,
      ...(this.heldBecause === undefined ? {} : { heldBecause: this.heldBecause }),
    };
  }

  /** Releases when a release is due and nothing holds it; returns the new version, if any. */
  async tick(): Promise<string | undefined> {
    if (this.now() < this.dueAt) return undefined;
    let held: string | undefined;
    try {
      held = await this.options.hold?.(this.current());
    } catch (error) {
      held = `cannot tell whether to release: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.heldBecause = held;
    if (held !== undefined) return undefined;
    return this.release();
  }

  /** Commits the next version to every file now, in one commit. */
  release(): string | undefined {
    const { github, repository, files } = this.options;
    this.dueAt = this.now() + this.options.everyMs;
    const current = this.current();
    if (current === undefined) {
      this.options.onActivity?.({
        type: 'release-failed',
        message: `no chart version in ${files[0] ?? '(no file)'} on ${this.branch}`,
      });
      return undefined;
    }
    const version = (this.options.nextVersion ?? nextPatchVersion)(current);
    const changes: Record<string, string> = {};
    for (const file of files) {
      const text = github.readFile(repository.owner, repository.name, this.branch, file);
      if (text !== undefined) changes[file] = withChartVersion(text, version);
    }
    const commit = github.commitFiles(repository.owner, repository.name, this.branch, changes, `release ${version}`);
    const message = `released ${version} (${Object.keys(changes).join(', ')}, commit ${commit.slice(0, 7)})`;
    this.options.onActivity?.({ type: 'released', version, commit, message });
    return version;
  }

  /** The version the first file names now. */
  current(): string | undefined {
    const { github, repository, files } = this.options;
    const [file] = files;
    const text = file === undefined ? undefined : github.readFile(repository.owner, repository.name, this.branch, file);
    return text === undefined ? undefined : chartVersionIn(text);
  }
}

/** 6.9.0 → 6.9.1; throws on a version that is not semantic. */
export function nextPatchVersion(current: string): string {
  const next = valid(current) === null ? null : inc(current, 'patch');
  if (next === null) throw new Error(`${current} is not a semantic version`);
  return next;
}
