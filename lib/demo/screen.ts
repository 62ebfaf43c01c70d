// The demo's terminal. On a TTY the view is redrawn in place every second under a banner that says it is a
// simulation; otherwise the introduction is printed once, then each activity line as it happens and each keyed view
// line when its text changes (one line per change, for a log or a test). What the lines say comes partly from
// outside (the controller's log, audit entries, what the simulated clusters report): it is shown through `printable`,
// so only the screen's own escape sequences ever reach the terminal.
import { printable } from '../logging/printable.js';

/** Says on every screen that nothing real is touched, naming the simulated Git host. */
function banner(hostName: string): string {
  return `SIMULATION — no real cluster or ${hostName} is touched`;
}

/**
 * One line of the view. Without a TTY, a line with a `key` is printed (as `log`, else `text`) each time that text
 * changes. `live` is a part shown on a TTY only (countdowns), which does not count as a change.
 */
export interface Line {
  text: string;
  key?: string;
  log?: string;
  live?: string;
}

export class Screen {
  private intro: string[] = [];
  private readonly printed = new Map<string, string>();
  private drawn = false;
  private readonly banner: string;

  /** Prints the banner at once, before anything else. `hostName` is the simulated Git host's, default `GitHub`. */
  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly tty: boolean,
    hostName = 'GitHub',
  ) {
    this.banner = banner(hostName);
    out.write(`${this.banner}\n${tty ? 'starting the simulated world and the local mode…\n' : ''}`);
  }

  /** Shows the introduction: under the banner of each redraw on a TTY, printed once otherwise. */
  start(intro: string[]): void {
    this.intro = intro;
    this.out.write(this.tty ? '\x1b[?25l\x1b[2J\x1b[H' : `${intro.map(printable).join('\n')}\n\n`);
  }

  render(lines: readonly Line[]): void {
    if (this.tty) {
      const banner = process.env.NO_COLOR ? this.banner : `\x1b[1;30;43m ${this.banner} \x1b[0m`;
      const shown = lines.map((line) => printable(line.text + (line.live ?? '')));
      const all = [banner, ...this.intro.map(printable), '', ...shown];
      this.out.write(`\x1b[H${all.map((line) => `${line}\x1b[K`).join('\n')}\n\x1b[J`);
      this.drawn = true;
      return;
    }
    for (const line of lines) {
      const text = printable(line.log ?? line.text.trim());
      if (line.key === undefined || this.printed.get(line.key) === text) continue;
      this.printed.set(line.key, text);
      if (text !== '') this.out.write(`${clock(new Date())}  ${text}\n`);
    }
  }

  /** An activity line: printed at once without a TTY (on a TTY it shows in the next redraw). */
  event(line: string): void {
    if (!this.tty) this.out.write(`${printable(line)}\n`);
  }

  note(message: string): void {
    this.out.write(`${printable(message)}\n`);
  }

  stopping(): void {
    this.out.write(this.tty && this.drawn ? '\nstopping the demo…\n' : 'stopping the demo…\n');
  }

  finish(): void {
    if (this.tty) this.out.write('\x1b[?25h');
  }
}

/** `HH:MM:SS`, local time. */
export function clock(date: Date): string {
  return date.toTimeString().slice(0, 8);
}
