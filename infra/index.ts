// The package's `pipeline-controller/infra` entry: what a CDK app outside this repository builds on. The construct
// with its props, and the stack this repository deploys (the construct plus its outputs) for those who want it whole.
export {
  DEFAULTS,
  PipelineController,
  RECEIVER_READABLE_SECRET_TAG,
  WEBHOOK_HMAC_SECRET_TAG,
} from './pipeline-controller.js';
export type * from './pipeline-controller.js';
export { OUTPUTS, PipelineControllerStack } from './stack.js';
export type { PipelineControllerStackProps } from './stack.js';
