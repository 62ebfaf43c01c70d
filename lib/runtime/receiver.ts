// The receiver Lambda's assembly: a function URL event in, the transport-neutral receiver (lib/http), the answer
// out. Only what the receiver needs is imported here, so its bundle stays free of the verifier's clients, and of
// every part of the Store its routes never call (`createReceiverStore`, not the whole table of aws-dependencies.ts).
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fromFunctionUrlEvent, handleRequest, toFunctionUrlResult, type ReceiverDeps } from '../http/index.js';
import { functionMetrics } from '../observability/emf-metrics.js';
import { eventMetrics } from '../observability/event-metrics.js';
import { createReceiverStore } from '../store/dynamodb-receiver-store.js';
import { awsClients } from './aws.js';
import { functionLogger } from './logger.js';
import { perContainer } from './per-container.js';

export type ReceiverHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

export function receiverHandler(): ReceiverHandler {
  const logger = functionLogger('receiver');
  const metrics = functionMetrics('receiver');
  const dependencies = perContainer((): ReceiverDeps => {
    const aws = awsClients();
    return {
      store: createReceiverStore(aws.dynamo),
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
