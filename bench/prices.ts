// The list prices and stack settings the cost figures are computed with (bench/cost-per-event.ts,
// bench/fleet-scaling.ts): one place, so that both tables change together.

/** On-demand prices, us-east-1 (DynamoDB: since the November 2024 reduction). */
export const PRICES = {
  writeRequestUnit: 0.625 / 1e6,
  readRequestUnit: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  /** Per GB-second of an arm64 function (the stack's architecture). */
  lambdaArmGbSecond: 0.0000133334,
  /** DynamoDB standard table storage, per GB-month. */
  dynamoStorageGbMonth: 0.25,
};

/** The functions' memory in the CDK stack (infra/pipeline-controller.ts), in GB. */
export const MEMORY_GB = { verifier: 1024 / 1024, poller: 256 / 1024 };

/** A Lambda function's share of a vCPU: proportional to its memory, one whole vCPU at 1,769 MB. */
export const vcpuShare = (memoryGb: number): number => Math.min(1, (memoryGb * 1024) / 1769);

export const PRICE_SOURCES =
  'list prices as of 2025, us-east-1: DynamoDB on-demand $0.625/M WRU, $0.125/M RRU ' +
  '(https://aws.amazon.com/dynamodb/pricing/on-demand/); SQS standard $0.40/M requests, one request per 64 KB ' +
  'chunk (https://aws.amazon.com/sqs/pricing/); Lambda $0.20/M requests, arm64 $0.0000133334/GB-s, CPU in ' +
  'proportion to memory, 1 vCPU at 1,769 MB (https://aws.amazon.com/lambda/pricing/, ' +
  'https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html)';

/** The event source mapping's batch size in the CDK stack (infra/pipeline-controller.ts). */
export const MAX_BATCH_SIZE = 10;

/** The poller's schedule in the CDK stack: rate(5 minutes). */
export const POLLS_PER_MONTH = (30 * 24 * 60) / 5;
