export type * from './port.js';
export { createDynamoStore, type DynamoStoreOptions } from './dynamodb/store.js';
export { createTable, TABLE_SCHEMA } from './dynamodb/table.js';
export { ConcurrentChangeError } from './dynamodb/configuration.js';
export { DynamoMarkerScans, markerScanKey, type DynamoMarkerScansOptions } from './dynamodb/marker-scans.js';
