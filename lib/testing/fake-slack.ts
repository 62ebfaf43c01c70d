// A fake Slack incoming webhook on 127.0.0.1, for tests and the demo: it records every POST and answers as Slack does
// (200 `ok`; 400 `invalid_payload`, `no_text` or `invalid_blocks` for a message Slack would refuse; 404 `no_service`
// for a webhook URL it did not issue), or as it is told to (any status, or slowly). Only the Block Kit rules a
// message of ours could break are checked: block types, a header's plain text up to 150 characters, a section's text
// up to 3,000 and its fields up to 10 of 2,000, a context's elements.
//
// Any other path takes any JSON and answers 200: the same server stands in for a generic webhook.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { LoopbackServer, withBody } from './listen.js';

export interface FakeSlackPost {
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent, byte for byte (as UTF-8 text). */
  body: string;
  /** The status answered; undefined while a slow answer is pending. */
  status?: number;
}

export type FakeSlackBehaviour =
  /** Answer as Slack does. */
  | 'slack'
  /** Answer this status (and body) to every request. */
  | { status: number; body?: string }
  /** Answer as Slack does, after this long (or never, if the server stops first). */
  | { delayMs: number };

const WEBHOOK_PREFIX = '/services/';
const MAX_BLOCKS = 50;

export class FakeSlack {
  /** Every request received, oldest first. */
  readonly posts: FakeSlackPost[] = [];
  behaviour: FakeSlackBehaviour = 'slack';

  /** The path of the one webhook this fake issued: what a real one's secret part looks like. */
  private readonly webhookPath = `${WEBHOOK_PREFIX}T${hex(4)}/B${hex(4)}/${hex(12)}`;
  private server?: LoopbackServer;

  static async start(): Promise<FakeSlack> {
    const fake = new FakeSlack();
    const server = createServer(
      withBody((request, body, response) => {
        const post: FakeSlackPost = {
          path: request.url ?? '',
          headers: request.headers,
          body: body.toString('utf8'),
        };
        fake.posts.push(post);
        const answer = (): void => {
          const { status, body } = fake.answerTo(request.method ?? '', post);
          post.status = status;
          response.writeHead(status, { 'content-type': 'text/plain' });
          response.end(body);
        };
        const behaviour = fake.behaviour;
        if (typeof behaviour === 'object' && 'delayMs' in behaviour) fake.server?.later(behaviour.delayMs, answer);
        else answer();
      }),
    );
    fake.server = await LoopbackServer.start(server);
    return fake;
  }

  /** `http://127.0.0.1:<port>`: any path under it is a generic webhook. */
  get url(): string {
    if (this.server === undefined) throw new Error('FakeSlack is not started');
    return `http://127.0.0.1:${this.server.port}`;
  }

  /** The incoming webhook's URL, secret part included (`/services/T…/B…/…`). */
  get webhookUrl(): string {
    return `${this.url}${this.webhookPath}`;
  }

  /** The messages Slack took (answered 200 on the webhook's path), parsed. */
  get messages(): unknown[] {
    return this.posts
      .filter((post) => post.path === this.webhookPath && post.status === 200)
      .map((post) => JSON.parse(post.body) as unknown);
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }

  private answerTo(method: string, post: FakeSlackPost): { status: number; body: string } {
    const behaviour = this.behaviour;
    if (typeof behaviour === 'object' && 'status' in behaviour) {
      return { status: behaviour.status, body: behaviour.body ?? '' };
    }
    if (method !== 'POST') return { status: 405, body: 'invalid_method' };
    if (!post.path.startsWith(WEBHOOK_PREFIX)) return { status: 200, body: 'ok' };
    if (post.path !== this.webhookPath) return { status: 404, body: 'no_service' };
    let message: unknown;
    try {
      message = JSON.parse(post.body);
    } catch {
      return { status: 400, body: 'invalid_payload' };
    }
    if (!isRecord(message)) return { status: 400, body: 'invalid_payload' };
    if (typeof message.text !== 'string' && message.blocks === undefined) return { status: 400, body: 'no_text' };
    if (message.blocks !== undefined && !validBlocks(message.blocks)) return { status: 400, body: 'invalid_blocks' };
    return { status: 200, body: 'ok' };
  }
}

function validBlocks(blocks: unknown): boolean {
  if (!Array.isArray(blocks) || blocks.length > MAX_BLOCKS) return false;
  return blocks.every((block) => {
    if (!isRecord(block)) return false;
    switch (block.type) {
      case 'header':
        return isText(block.text, 150) && isRecord(block.text) && block.text.type === 'plain_text';
      case 'section': {
        const fields = block.fields;
        if (block.text === undefined && fields === undefined) return false;
        if (block.text !== undefined && !isText(block.text, 3_000)) return false;
        if (fields === undefined) return true;
        return Array.isArray(fields) && fields.length <= 10 && fields.every((field) => isText(field, 2_000));
      }
      case 'context':
        return (
          Array.isArray(block.elements) &&
          block.elements.length >= 1 &&
          block.elements.length <= 10 &&
          block.elements.every((element) => isText(element, 3_000))
        );
      default:
        return false;
    }
  });
}

function isText(value: unknown, max: number): boolean {
  return (
    isRecord(value) &&
    (value.type === 'plain_text' || value.type === 'mrkdwn') &&
    typeof value.text === 'string' &&
    value.text.length >= 1 &&
    value.text.length <= max
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex').toUpperCase();
