// Starting a fake server on a free loopback port: shared by the fake Kubernetes API and the fake Git hosts.
import type { AddressInfo, Server } from 'node:net';

/** Listens on 127.0.0.1 with a port the system picks; resolves to that port, or rejects if listening fails. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
