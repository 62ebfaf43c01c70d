// dynalite in a process of its own (startDynalite's `ownProcess`), set up as the tests' own (dynalite.ts): it prints
// the port it listens on and exits when its parent closes its stdin, so that it never outlives the benchmark that
// started it.
import { serveInProcess } from './dynalite.js';

const { port } = await serveInProcess();
process.stdout.write(`${port}\n`);
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
