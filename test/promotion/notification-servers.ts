// Local stand-ins for the receivers of promotion events: a webhook endpoint and the EventBridge PutEvents API (the
// AWS JSON 1.1 protocol, enough for a real EventBridgeClient). Both listen on 127.0.0.1 on a random port and record
// what they were sent, byte for byte.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';

export interface ReceivedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What to answer: a status with headers and body, or `hang` (never answer). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  received: ReceivedRequest[];
  /** Decides the answer to each request; the default answers 200. */
  reply: (request: ReceivedRequest) => Reply;
  stop(): Promise<void>;
}

export async function startLocalServer(reply: (request: ReceivedRequest) => Reply = () => ({ status: 200 })) {
  const local: LocalServer = { url: '', received: [], reply, stop: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      local.received.push(request);
      const answer = local.reply(request);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  local.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  local.stop = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  };
  return local;
}

export const AWS_CREDENTIALS = { accessKeyId: 'AKIDLOCALTEST', secretAccessKey: 'local/Secret+AccessKey0123456789' };

/** A PutEvents answer in the AWS JSON 1.1 protocol. */
export const putEventsReply = {
  accepted: (): Reply =>
    json(200, { FailedEntryCount: 0, Entries: [{ EventId: '11710aed-b79e-4468-a20b-bb3c0c3b4860' }] }),
  failedEntry: (code: string): Reply =>
    json(200, { FailedEntryCount: 1, Entries: [{ ErrorCode: code, ErrorMessage: `entry failed: ${code}` }] }),
  error: (status: number, type: string, message = 'the service says no'): Reply =>
    json(status, { __type: type, message }),
};

function json(status: number, body: unknown): Reply {
  return { status, headers: { 'Content-Type': 'application/x-amz-json-1.1' }, body: JSON.stringify(body) };
}

export interface LocalEventBridge {
  server: LocalServer;
  client: EventBridgeClient;
  /** The answer to each PutEvents request; default: accepted. */
  putEvents: (request: ReceivedRequest) => Reply;
  stop(): Promise<void>;
}

/**
 * A local EventBridge: PutEvents requests (`X-Amz-Target: AWSEvents.PutEvents`, AWS JSON 1.1) are recorded and
 * answered by `putEvents`; any other request gets an UnknownOperationException. The client makes one attempt per
 * call, so a failure shows at once.
 */
export async function startLocalEventBridge(): Promise<LocalEventBridge> {
  const server = await startLocalServer();
  const client = new EventBridgeClient({
    endpoint: server.url,
    region: 'eu-west-1',
    credentials: AWS_CREDENTIALS,
    maxAttempts: 1,
  });
  const local: LocalEventBridge = {
    server,
    client,
    putEvents: () => putEventsReply.accepted(),
    stop: () => {
      client.destroy();
      return server.stop();
    },
  };
  server.reply = (request) =>
    request.method === 'POST' &&
    request.headers['x-amz-target'] === 'AWSEvents.PutEvents' &&
    request.headers['content-type'] === 'application/x-amz-json-1.1'
      ? local.putEvents(request)
      : putEventsReply.error(400, 'UnknownOperationException', 'not a PutEvents request');
  return local;
}

/** The entries of a recorded PutEvents request. */
export function putEventsEntries(request: ReceivedRequest): Record<string, unknown>[] {
  const body = JSON.parse(request.body.toString('utf8')) as { Entries?: Record<string, unknown>[] };
  return body.Entries ?? [];
}
