// Puts news on an EventBridge bus, as the notification strategy puts its events (lib/promotion/notification-strategy/
// eventbridge.ts): one PutEvents entry, `Source` pipeline-controller, `DetailType` `Pipeline news`, `Detail` the news
// as JSON (news-document.ts). Rules on the bus route it anywhere: a chat, a pager, a ticket, a queue.
//
// The client is a port (`PutEventsClient`): an EventBridgeClient fits it, and tests pass a fake. The SDK retries
// throttling and 5xx itself; what is left is a NotificationDeliveryError with the error's name, never AWS's text.
import type { PutEventsCommand, PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { REPORTING_CONTROLLER } from '../promotion/notification-strategy/event.js';
import { NotificationDeliveryError } from './delivery-error.js';
import { newsDocument } from './news-document.js';
import type { News } from './news.js';
import type { NewsSink } from './sink.js';

export const NEWS_DETAIL_TYPE = 'Pipeline news';

/** What the sink needs of an EventBridgeClient. */
export interface PutEventsClient {
  send(command: PutEventsCommand): Promise<Pick<PutEventsCommandOutput, 'FailedEntryCount' | 'Entries'>>;
}

export interface NewsEventBusSinkOptions {
  client: PutEventsClient;
  /** The bus name or ARN. */
  eventBusName: string;
}

export class NewsEventBusSink implements NewsSink {
  readonly name: string;
  private readonly client: PutEventsClient;
  private readonly eventBusName: string;

  constructor(options: NewsEventBusSinkOptions) {
    if (!options.eventBusName) throw new Error('EventBridge news sink: eventBusName is required');
    this.client = options.client;
    this.eventBusName = options.eventBusName;
    this.name = `EventBridge bus ${options.eventBusName}`;
  }

  async deliver(news: News): Promise<void> {
    // The SDK's EventBridge client is loaded by the first delivery, not at a verifier's cold start.
    const { PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
    const command = new PutEventsCommand({
      Entries: [
        {
          Source: REPORTING_CONTROLLER,
          DetailType: NEWS_DETAIL_TYPE,
          Detail: JSON.stringify(newsDocument(news)),
          EventBusName: this.eventBusName,
        },
      ],
    });
    let output: Pick<PutEventsCommandOutput, 'FailedEntryCount' | 'Entries'>;
    try {
      output = await this.client.send(command);
    } catch (error) {
      const sdk = error as { name?: unknown; $metadata?: { httpStatusCode?: number } } | null;
      const status = sdk?.$metadata?.httpStatusCode;
      const code = error instanceof Error ? error.name : 'unknown error';
      throw status === undefined
        ? new NotificationDeliveryError(this.name, 'network', { code })
        : new NotificationDeliveryError(this.name, 'http-status', { status, code });
    }
    const failed = output.Entries?.find((entry) => entry.ErrorCode !== undefined && entry.ErrorCode !== '');
    if ((output.FailedEntryCount ?? 0) > 0 || failed) {
      throw new NotificationDeliveryError(this.name, 'rejected', { code: failed?.ErrorCode ?? 'unknown error' });
    }
  }
}
