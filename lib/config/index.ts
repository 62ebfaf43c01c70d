export * from './schema.js';
export * from './problems.js';
export { loadConfiguration, loadConfigurationText, loadSources, readConfigurationFiles } from './load.js';
export type { Configuration, ConfigurationSources, LoadOptions, LoadResult, Located, LoadedSecret } from './load.js';
export * from './limits.js';
export type { KnownSecret } from './references.js';
