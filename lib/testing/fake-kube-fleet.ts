// The fake Kubernetes API servers of a fleet (FakeKubeApi, one per cluster) in a child process of their own, for the
// benchmarks that measure the verifier's CPU and wall time: the leaf clusters' API servers are other machines, and on
// the benchmark's one thread their JSON, HTTP and TLS work (an RSA handshake per new connection) would count as the
// product's. This side holds each server's kubeconfig and asks the child, over IPC, for what a benchmark checks:
// the requests each server received and the TLS connections it accepted.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { FakeRequestType } from './fake-kube-api.js';

/** What one server received since the start or the last `resetRequests`. */
export type FleetRequestCounts = Record<FakeRequestType, number> & { tlsConnections: number };

/** What the parent asks of the child process (fake-kube-fleet-process.ts), each answered by a FleetReply. */
export type FleetRequest =
  | { op: 'start'; clusters: number }
  | { op: 'put'; objects: object[] }
  | { op: 'latency'; ms: number }
  | { op: 'reset' }
  | { op: 'counts' };

export type FleetCommand = FleetRequest & { id: number };

export type FleetReply =
  | { id: number; ok: true; kubeconfigs?: string[]; counts?: FleetRequestCounts[] }
  | { id: number; ok: false; error: string };

export class FakeKubeFleet {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (reply: FleetReply) => void; reject: (e: Error) => void }>();
  private started: readonly string[] = [];

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: FleetReply) => this.answered(reply));
    child.once('exit', (code) => this.failAll(new Error(`the fake fleet's process exited (${code})`)));
  }

  /** Starts `clusters` servers, each with no objects and no latency. */
  static async start(clusters: number): Promise<FakeKubeFleet> {
    const entry = new URL('./fake-kube-fleet-process.ts', import.meta.url).pathname;
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const fleet = new FakeKubeFleet(child);
    fleet.started = (await fleet.ask({ op: 'start', clusters })).kubeconfigs ?? [];
    return fleet;
  }

  /** Each cluster's kubeconfig (CA data embedded, bearer token), as a Secret's `value` would hold it. */
  get kubeconfigs(): readonly string[] {
    return this.started;
  }

  /** Puts each object on every server (each gets its own uid and resourceVersion). */
  async putEverywhere(objects: readonly object[]): Promise<void> {
    await this.ask({ op: 'put', objects: [...objects] });
  }

  /** Delays every answer of every server by `ms`. */
  async setLatency(ms: number): Promise<void> {
    await this.ask({ op: 'latency', ms });
  }

  /** Clears every server's request log and count of TLS connections. */
  async resetRequests(): Promise<void> {
    await this.ask({ op: 'reset' });
  }

  /** Per server, in the order of `kubeconfigs`. */
  async requestCounts(): Promise<FleetRequestCounts[]> {
    return (await this.ask({ op: 'counts' })).counts ?? [];
  }

  /** Stops the servers and their process. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }

  private ask(command: FleetRequest): Promise<Extract<FleetReply, { ok: true }>> {
    if (!this.child.connected) return Promise.reject(new Error("the fake fleet's process is stopped"));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {
        resolve: (reply) => (reply.ok ? resolve(reply) : reject(new Error(`fake fleet: ${reply.error}`))),
        reject,
      });
      this.child.send({ ...command, id }, (error) => {
        if (!error) return;
        this.waiting.delete(id);
        reject(error);
      });
    });
  }

  private answered(reply: FleetReply): void {
    const waiter = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    waiter?.resolve(reply);
  }

  private failAll(error: Error): void {
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}
