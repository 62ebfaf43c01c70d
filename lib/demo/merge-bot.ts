// The demo's reviewers: a bot that merges every open promotion pull request (`promotion-*` branches) on the fleet
// repository `delayMs` after it first saw it. It does not look at manual environments: the product asks for the
// approval before it opens the pull request of a manual environment, so a pull request that exists has been approved
// already.
import type { FakeGitHub, FakePullRequest } from '../testing/fake-github.js';
import type { FleetRepository } from './fleet-manifest.js';
import { Loop } from './loop.js';

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
