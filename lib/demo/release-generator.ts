// The demo's CI: every `everyMs` it commits the next patch version (6.9.0 → 6.9.1 → …) of the chart to the first
// environment's manifests on the fleet repository's main branch, unless `hold` gives a reason to wait.
import { inc, valid } from 'semver';
import { chartVersionIn, withChartVersion } from '../testing/helm-release.js';
import type { FleetRepository } from './fleet-repository.js';
import { Loop } from './loop.js';
import { errorMessage } from '../util/error-message.js';

export interface ReleaseActivity {
  type: 'released' | 'release-failed';
  version?: string;
  commit?: string;
  message: string;
}

export interface ReleaseGeneratorOptions {
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
      held = `cannot tell whether to release: ${errorMessage(error)}`;
    }
    this.heldBecause = held;
    if (held !== undefined) return undefined;
    return this.release();
  }

  /** Commits the next version to every file now, in one commit. */
  release(): string | undefined {
    const { repository, files } = this.options;
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
      const text = repository.readFile(this.branch, file);
      if (text !== undefined) changes[file] = withChartVersion(text, version);
    }
    const commit = repository.commitFiles(this.branch, changes, `release ${version}`);
    const message = `released ${version} (${Object.keys(changes).join(', ')}, commit ${commit.slice(0, 7)})`;
    this.options.onActivity?.({ type: 'released', version, commit, message });
    return version;
  }

  /** The version the first file names now. */
  current(): string | undefined {
    const { repository, files } = this.options;
    const [file] = files;
    const text = file === undefined ? undefined : repository.readFile(this.branch, file);
    return text === undefined ? undefined : chartVersionIn(text);
  }
}

/** 6.9.0 → 6.9.1; throws on a version that is not semantic. */
export function nextPatchVersion(current: string): string {
  const next = valid(current) === null ? null : inc(current, 'patch');
  if (next === null) throw new Error(`${current} is not a semantic version`);
  return next;
}
