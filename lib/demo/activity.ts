// What happened lately in the demo: the simulated actors' doings (Flux, the Git host, CI), the controller's log and its
// audit trail, in one list of the newest lines.
import { clock, type Screen } from './screen.js';

const ACTIVITY_LINES = 10;

/** An audit entry as the activity list shows it; `id` tells entries apart across reads. */
export interface AuditLine {
  at: string;
  message: string;
  id: string;
}

export class Activity {
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
  collect(entries: readonly AuditLine[]): void {
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
