// The public API of lib/store: the Store port, its errors and limits, and the DynamoDB table adapter. The adapter's modules
// (lib/store/dynamodb/*) are its own: callers get the table through `dynamoTable` or `createDynamoStore`.
export type * from './port.js';
export { ConcurrentChangeError } from './errors.js';
export { sameOwningSource } from './object-owner.js';
export { dynamoTable, type DynamoTable, type DynamoTableOptions } from './dynamodb-table.js';
export { createDynamoStore, type DynamoStoreOptions } from './dynamodb/store.js';
export { createReceiverStore } from './dynamodb-receiver-store.js';
export { createTable, TABLE_SCHEMA } from './dynamodb/table.js';
export { DEFAULT_RETENTION_DAYS } from './retention.js';
export { putRawItems } from './dynamodb/batch.js';
export { markerScanKey, MAX_SCAN_ITEMS, type DynamoMarkerScansOptions } from './dynamodb/marker-scans.js';
export { checkStoreLimits, STORE_LIMITS, type ConfigurationToStore, type PipelineToStore } from './dynamodb/limits.js';
/** How the store tells an unchanged definition (equal JSON, whatever the key order); a dry run compares the same way. */
export { canonicalJson } from './dynamodb/fingerprint.js';
export { walkAuditTrail, type TrailStep, type TrailWalkEnd, type TrailWalkOptions } from './audit-trail.js';
