// dynalite in a process of its own (startDynalite's `ownProcess`): it prints the port it listens on and exits when
// its parent closes its stdin, so that it never outlives the benchmark that started it.
import dynalite from 'dynalite';

const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
// As in the tests' dynalite: idle connections stay open (see dynalite.ts).
server.keepAliveTimeout = 0;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
