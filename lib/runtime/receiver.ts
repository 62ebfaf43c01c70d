// The receiver Lambda's assembly: a function URL event in, the transport-neutral receiver (lib/http), the answer
// out. Only what the receiver needs is imported here, so its bundle stays free of the verifier's clients.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fromFunctionUrlEvent, handleRequest, toFunctionUrlResult, type ReceiverDeps } from '../http/index.js';
import { functionMetrics } from '../observability/emf-metrics.js';
import { eventMetrics } from '../observability/event-metrics.js';
import { awsDependencies } from './aws.js';
import { functionLogger } from './logger.js';
import { perContainer } from './per-container.js';

export type ReceiverHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export function receiverHandler(): ReceiverHandler {
  const logger = functionLogger('receiver');
  const metrics = functionMetrics('receiver');
  const dependencies = perContainer((): ReceiverDeps => {
    const aws = awsDependencies();
    return {
      store: aws.table.store,
      queue: aws.queue,
      secrets: aws.secrets,
      masterKeys: () => aws.masterKeys(),
      logger,
      onEvent: eventMetrics(metrics),
    };
  });
  return async (event) => {
    try {
      return toFunctionUrlResult(await handleRequest(fromFunctionUrlEvent(event), dependencies()));
    } finally {
      metrics.flush();
    }
  };
}
