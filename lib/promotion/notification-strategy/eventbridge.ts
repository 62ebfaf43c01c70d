// Puts the event on an EventBridge bus: `Source` pipeline-controller, `DetailType` Promote, `Detail` the Flux-format
// event. Rules on the bus then fan it out (an API destination to GitHub or Slack, a Lambda, a queue: see
// docs/notifications.md).
//
// The SDK client retries throttling and 5xx itself (its `maxAttempts`); what is left when it gives up is reported
// as a PromotionError. Messages carry the error's name and status, not AWS's text, and never the credentials.
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { PromotionFailureKind } from '../failure-kind.js';
import { PromotionError } from '../port.js';
import { encodeEvent, PROMOTE_REASON, REPORTING_CONTROLLER, type PromotionEvent } from './event.js';
import type { NotificationSink } from './sink.js';

export interface EventBridgeSinkOptions {
  client: EventBridgeClient;
  /** The bus name or ARN. */
  eventBusName: string;
  /** The entries' `Source`; default `pipeline-controller`. */
  source?: string;
}

/** Error names (of an SDK error or a failed entry's `ErrorCode`) that a later attempt can get past, by kind. */
const RETRIED_ERRORS: Readonly<Record<string, PromotionFailureKind>> = {
  InternalException: 'HostUnavailable',
  InternalFailure: 'HostUnavailable',
  InternalServerError: 'HostUnavailable',
  ServiceUnavailable: 'HostUnavailable',
  ServiceUnavailableException: 'HostUnavailable',
  ThrottlingException: 'RateLimited',
  Throttling: 'RateLimited',
  TooManyRequestsException: 'RateLimited',
  RequestLimitExceeded: 'RateLimited',
  LimitExceededException: 'RateLimited',
  RequestTimeout: 'Timeout',
  RequestTimeoutException: 'Timeout',
  TimeoutError: 'Timeout',
  // Temporary credentials that expired in flight, or a clock that drifted: the next call signs afresh.
  ExpiredTokenException: 'StaleCredentials',
  RequestExpired: 'StaleCredentials',
  RequestTimeTooSkewed: 'StaleCredentials',
};

/** The kind of a fault a later attempt can get past, by its error name; undefined for any other name. */
function retriedKind(name: string): PromotionFailureKind | undefined {
  return Object.hasOwn(RETRIED_ERRORS, name) ? RETRIED_ERRORS[name] : undefined;
}

/** The kind of a refusal that will not go away by itself, by its error name. */
function refusalKind(name: string): PromotionFailureKind {
  if (/AccessDenied/i.test(name)) return 'Forbidden';
  if (/NotFound/i.test(name)) return 'NotFound';
  if (/UnrecognizedClient|InvalidClientTokenId|InvalidSignature/i.test(name)) return 'Unauthorized';
  return 'Invalid';
}

export class EventBridgeSink implements NotificationSink {
  readonly name: string;
  private readonly client: EventBridgeClient;
  private readonly eventBusName: string;
  private readonly source: string;

  constructor(options: EventBridgeSinkOptions) {
    if (!options.eventBusName) throw new Error('EventBridge sink: eventBusName is required');
    this.client = options.client;
    this.eventBusName = options.eventBusName;
    this.source = options.source ?? REPORTING_CONTROLLER;
    this.name = `EventBridge bus ${options.eventBusName}`;
  }

  async send(event: PromotionEvent): Promise<void> {
    // The SDK's EventBridge client is loaded by the first event sent, not at a verifier's cold start.
    const { PutEventsCommand } = await import('@aws-sdk/client-eventbridge');
    const command = new PutEventsCommand({
      Entries: [
        {
          Source: this.source,
          DetailType: PROMOTE_REASON,
          Detail: encodeEvent(event),
          EventBusName: this.eventBusName,
        },
      ],
    });
    let output;
    try {
      output = await this.client.send(command);
    } catch (error) {
      const { name, status, kind } = classify(error);
      const detail = status === undefined ? name : `${name}, HTTP ${status}`;
      throw new PromotionError(kind, `${this.name}: PutEvents failed (${detail})`, { cause: error });
    }
    const failed = output.Entries?.find((entry) => entry.ErrorCode !== undefined && entry.ErrorCode !== '');
    if ((output.FailedEntryCount ?? 0) > 0 || failed) {
      const code = failed?.ErrorCode ?? 'unknown error';
      throw new PromotionError(
        retriedKind(code) ?? refusalKind(code),
        `${this.name}: PutEvents rejected the event (${code})`,
      );
    }
  }
}

function classify(error: unknown): { name: string; status: number | undefined; kind: PromotionFailureKind } {
  if (!(error instanceof Error)) return { name: 'unknown error', status: undefined, kind: 'Unknown' };
  const sdk = error as Error & { $fault?: string; $metadata?: { httpStatusCode?: number } };
  const status = sdk.$metadata?.httpStatusCode;
  const name = error.name;
  const retried = retriedKind(name);
  if (retried) return { name, status, kind: retried };
  if (status === 429) return { name, status, kind: 'RateLimited' };
  if (sdk.$fault === 'server' || (status !== undefined && status >= 500))
    return { name, status, kind: 'HostUnavailable' };
  // An answer from the service that is neither of the above is a fault in the request or the permissions
  // (AccessDeniedException, ValidationException, ResourceNotFoundException): it will not go away by itself.
  if (status !== undefined || sdk.$fault === 'client') return { name, status, kind: refusalKind(name) };
  // No answer at all: a connection error, a DNS failure, credentials that could not be fetched just now.
  return { name, status, kind: 'HostUnavailable' };
}
