export * from './schema.js';
export * from './problems.js';
export { loadConfiguration, loadConfigurationText, loadSources, readConfigurationFiles } from './load.js';
export type { Configuration, ConfigurationSources, LoadOptions, LoadResult, Located, LoadedSecret } from './load.js';
export * from './limits.js';
export type { KnownSecret } from './references.js';
export { formatWarning, type ConfigurationWarning } from './warnings.js';
export type { WaitingApproval } from './waiting-approvals.js';
