export * from './schema.js';
export * from './problems.js';
export { loadConfiguration, loadConfigurationText } from './load.js';
export type { Configuration, LoadOptions, LoadResult, Located, LoadedSecret } from './load.js';
export type { KnownSecret } from './references.js';
