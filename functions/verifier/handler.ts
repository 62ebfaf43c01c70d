// The verifier Lambda: consumes the queue (SQS event source with ReportBatchItemFailures).
import { verifierHandler } from '../../lib/runtime/verifier.js';

export const handler = verifierHandler();
