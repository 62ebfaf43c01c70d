// Where a run of pipelinectl reads and writes: the process's standard streams, or the streams a run embedded in
// another process was given (`main(argv, terminal)`). The tests run most commands embedded, a few hundred runs that
// would each cost a process start. The terminal is carried by an AsyncLocalStorage rather than passed down, so that
// every print function reaches it and two embedded runs at once cannot write into each other's output.
import { AsyncLocalStorage } from 'node:async_hooks';

/** What a run writes text to. */
export interface TextSink {
  write(text: string): unknown;
}

export interface Terminal {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** Standard input, read by `apply -f -`. */
  readonly stdin: AsyncIterable<Buffer | string>;
}

const PROCESS_TERMINAL: Terminal = {
  stdout: process.stdout,
  stderr: process.stderr,
  get stdin() {
    return process.stdin;
  },
};

const embedded = new AsyncLocalStorage<Terminal>();

/** The terminal of the run in progress: the process's own, unless the run was given one. */
export function currentTerminal(): Terminal {
  return embedded.getStore() ?? PROCESS_TERMINAL;
}

/** Runs `action` with `terminal` as what everything it calls prints to and reads from. */
export function inTerminal<T>(terminal: Terminal | undefined, action: () => Promise<T>): Promise<T> {
  return terminal === undefined ? action() : embedded.run(terminal, action);
}
