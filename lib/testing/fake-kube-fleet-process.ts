// The child process of FakeKubeFleet (fake-kube-fleet.ts): it runs the fleet's FakeKubeApi servers and answers its
// parent's commands over IPC; it stops them and exits when the parent disconnects, so that it never outlives the
// benchmark that started it.
import { FakeKubeApi } from './fake-kube-api.js';
import type { FleetCommand, FleetReply } from './fake-kube-fleet.js';

const servers: FakeKubeApi[] = [];

async function handle(command: FleetCommand): Promise<FleetReply> {
  switch (command.op) {
    case 'start':
      for (let index = 0; index < command.clusters; index++) servers.push(await new FakeKubeApi().start());
      return { id: command.id, ok: true, kubeconfigs: servers.map((server) => server.kubeconfig()) };
    case 'put':
      for (const server of servers) for (const object of command.objects) server.put(object);
      return { id: command.id, ok: true };
    case 'latency':
      for (const server of servers) server.latencyMs = command.ms;
      return { id: command.id, ok: true };
    case 'reset':
      for (const server of servers) server.resetRequests();
      return { id: command.id, ok: true };
    case 'counts':
      return {
        id: command.id,
        ok: true,
        counts: servers.map((server) => ({
          list: server.count('list'),
          get: server.count('get'),
          discovery: server.count('discovery'),
          other: server.count('other'),
          tlsConnections: server.tlsConnections,
        })),
      };
  }
}

process.on('message', (command: FleetCommand) => {
  handle(command).then(
    (reply) => process.send?.(reply),
    (error: unknown) => process.send?.({ id: command.id, ok: false, error: String(error) } satisfies FleetReply),
  );
});
process.on('disconnect', () => {
  void Promise.all(servers.map((server) => server.stop())).finally(() => process.exit(0));
});
