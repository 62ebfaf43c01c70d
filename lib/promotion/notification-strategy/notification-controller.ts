// Delivers the event to a Flux notification-controller's event receiver, as Weave's notification strategy did: its
// Flux event recorder POSTed the event, unsigned, to the controller's `--events-addr` (Weave's Helm chart:
// `http://notification-controller.flux-system.svc.cluster.local./`), and an Alert on kind `Pipeline` forwarded it to
// the Providers (docs/notifications.md). Two things set this receiver apart from a webhook:
//
// - notification-controller keeps only the metadata keys prefixed with the involved object's API group, and strips
//   the prefix (Flux 2.0 onwards), so `environment`, `version` and `promotionId` are sent a second time under
//   `pipelines.weave.works/`: what the Providers then get is the event's own metadata. An older controller that keeps
//   every key forwards both spellings.
// - it answers 429 to an event identical to one it took within its rate-limit interval: that copy is a duplicate it
//   has dropped, so for this sink the event is delivered. Retrying would only be refused again, then send it twice.
import { PIPELINE_API_VERSION, type PromotionEvent } from './event.js';
import type { NotificationSink } from './sink.js';
import { WebhookSink } from './webhook.js';

export interface NotificationControllerSinkOptions {
  /** The event receiver's address, e.g. `http://notification-controller.flux-system.svc.cluster.local./`. */
  url: string | URL;
  /** For the whole exchange up to the response headers; default the webhook's 15 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const PIPELINE_API_GROUP = PIPELINE_API_VERSION.split('/')[0] ?? '';

export class NotificationControllerSink implements NotificationSink {
  readonly name: string;
  private readonly webhook: WebhookSink;

  constructor(options: NotificationControllerSinkOptions) {
    const send = options.fetch ?? globalThis.fetch;
    this.webhook = new WebhookSink({
      url: options.url,
      timeoutMs: options.timeoutMs,
      kind: 'notification-controller',
      fetch: async (input, init) => {
        const response = await send(input, init);
        if (response.status !== 429) return response;
        await response.body?.cancel().catch(() => undefined);
        return new Response(null, { status: 202 });
      },
    });
    this.name = this.webhook.name;
  }

  send(event: PromotionEvent): Promise<void> {
    return this.webhook.send({ ...event, metadata: withGroupPrefixedKeys(event.metadata) });
  }
}

/** The metadata with each key also under `<group>/`, in Go's map order (keys sorted), as the event is encoded. */
function withGroupPrefixedKeys(metadata: PromotionEvent['metadata']): PromotionEvent['metadata'] {
  const entries = Object.entries(metadata);
  const all = [...entries, ...entries.map(([key, value]) => [`${PIPELINE_API_GROUP}/${key}`, value] as const)];
  all.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Still every key of the event's metadata, plus the prefixed ones: a superset of the type.
  return Object.fromEntries(all) as PromotionEvent['metadata'];
}
