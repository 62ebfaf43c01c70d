// The verifier Lambda: consumes the queue (SQS event source with ReportBatchItemFailures).
import '../../lib/runtime/stack-traces.js'; // first: readable stack traces from here on
import { verifierHandler } from '../../lib/runtime/verifier.js';

export const handler = verifierHandler();
