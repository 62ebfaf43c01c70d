// The package's `pipeline-controller/infra` entry: what a CDK app outside this repository builds on. The construct
// with its props (it publishes the stack outputs the CLI reads), and the stack this repository deploys, for those who
// want it whole.
export {
  DEFAULTS,
  PipelineController,
  RECEIVER_READABLE_SECRET_TAG,
  WEBHOOK_HMAC_SECRET_TAG,
} from './pipeline-controller.js';
export type * from './pipeline-controller.js';
export { DEFAULT_CLUSTER_OUTPUT, NOTIFICATION_SINKS_OUTPUT, OUTPUTS } from './outputs.js';
export { PipelineControllerStack } from './stack.js';
export type { PipelineControllerStackProps } from './stack.js';
