export * from './schema.js';
export * from './problems.js';
export { loadConfiguration, loadConfigurationText, loadSources, readConfigurationFiles } from './load.js';
export type {
  Configuration,
  ConfigurationFiles,
  ConfigurationSources,
  LoadOptions,
  LoadResult,
  Located,
  LocatedPipelineSet,
  LoadedSecret,
} from './load.js';
export {
  CONFIG_SOURCE_KINDS,
  configSourceTreatment,
  isConfigSourceKind,
  type ConfigSourceTreatment,
  type SkippedDocument,
} from './config-source-documents.js';
export * from './limits.js';
export type { KnownSecret } from './references.js';
export { formatWarning, type ConfigurationWarning } from './warnings.js';
export type { WaitingApproval } from './waiting-approvals.js';
export { expandPipelineSet, generatedDocuments, type AppsElements, type Expansion } from './pipeline-set.js';
