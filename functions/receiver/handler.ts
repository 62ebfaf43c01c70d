// The receiver Lambda behind a function URL (auth NONE: Flux cannot sign SigV4; the HMAC is checked in lib/http).
// Thin: translate the event, call the transport-neutral handler, translate the answer.
import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fromFunctionUrlEvent, handleRequest, toFunctionUrlResult } from '../../lib/http/index.js';
import { awsDependencies } from '../../lib/runtime/aws.js';

const logger = new Logger({ serviceName: 'receiver' });

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const aws = awsDependencies();
  const response = await handleRequest(fromFunctionUrlEvent(event), {
    store: aws.store,
    queue: aws.queue,
    secrets: aws.secrets,
    masterKeys: () => aws.masterKeys(),
    logger,
  });
  return toFunctionUrlResult(response);
};
