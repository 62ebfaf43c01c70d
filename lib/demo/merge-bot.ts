// The demo's reviewers: a bot that merges every open promotion pull request (GitLab: merge request; `promotion-*`
// branches) on the fleet repository `delayMs` after it first saw it. It does not look at manual environments: the
// product asks for the approval before it opens the pull request of a manual environment, so a pull request that
// exists has been approved already.
import type { FleetPullRequest, FleetRepository } from './fleet-repository.js';
import { Loop } from './loop.js';

export interface MergeBotActivity {
  type: 'merged' | 'merge-failed';
  pull: FleetPullRequest;
  /** The target branch's commit the merge made. */
  commit?: string;
  message: string;
}

export interface MergeBotOptions {
  repository: FleetRepository;
  /** From first sight of an open pull request to its merge. Default 3000. */
  delayMs?: number;
  /** How often open pull requests are looked at. Default 1000. */
  intervalMs?: number;
  /** Which open pull requests it merges. Default: those whose head branch starts with `promotion-`. */
  accepts?: (pull: FleetPullRequest) => boolean;
  onActivity?: (activity: MergeBotActivity) => void;
  now?: () => number;
}

export class MergeBot {
  private readonly delayMs: number;
  private readonly accepts: (pull: FleetPullRequest) => boolean;
  private readonly now: () => number;
  /** Open pull request id → when it merges. */
  private readonly due = new Map<number, number>();
  private readonly loop: Loop;

  constructor(private readonly options: MergeBotOptions) {
    this.delayMs = options.delayMs ?? 3000;
    this.accepts = options.accepts ?? ((pull) => pull.sourceBranch.startsWith('promotion-'));
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

  /** When the open pull request `id` will be merged (epoch ms), if the bot means to merge it. */
  mergesAt(id: number): number | undefined {
    return this.due.get(id);
  }

  /** Looks at the open pull requests once and merges those that are due. */
  tick(): void {
    const { repository } = this.options;
    const now = this.now();
    const open = repository.pullRequests().filter((pull) => pull.state === 'open' && this.accepts(pull));
    for (const id of this.due.keys()) {
      if (!open.some((pull) => pull.id === id)) this.due.delete(id);
    }
    for (const pull of open) {
      const due = this.due.get(pull.id);
      if (due === undefined) {
        this.due.set(pull.id, now + this.delayMs);
        continue;
      }
      if (due > now) continue;
      this.due.delete(pull.id);
      const reference = repository.reference(pull.id);
      try {
        const commit = repository.merge(pull.id);
        this.options.onActivity?.({
          type: 'merged',
          pull: { ...pull, state: 'merged' },
          commit,
          message: `merged ${reference} ${pull.title}`,
        });
      } catch (error) {
        this.options.onActivity?.({
          type: 'merge-failed',
          pull,
          message: `could not merge ${reference}: ${String(error)}`,
        });
      }
    }
  }
}
