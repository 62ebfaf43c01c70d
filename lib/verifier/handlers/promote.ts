// `promote`: sent after an approval. The approval is already in the store; deciding again turns it into the
// promotion (or into nothing, when the environment moved on meanwhile).
import type { PromoteMessage } from '../../queue/messages.js';
import type { VerifierDeps } from '../deps.js';
import { evaluatePipeline } from '../evaluate.js';

export async function promoteApproved(message: PromoteMessage, deps: VerifierDeps): Promise<void> {
  await evaluatePipeline(message.pipeline, deps);
}
