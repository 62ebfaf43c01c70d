// The DynamoDB table as the rest of lib/ gets it: one client and one table name give the Store and the GitHub marker
// scan's items (docs/architecture.md, "The table"), so no caller builds the adapter's table context itself.
import type { MarkerScanStore } from '../promotion/pull-request/scan-store.js';
import { DynamoMarkerScans, type DynamoMarkerScansOptions } from './dynamodb/marker-scans.js';
import { createDynamoStore, type DynamoStoreOptions } from './dynamodb/store.js';
import { tableContext } from './dynamodb/table.js';
import type { Store } from './port.js';

export type DynamoTableOptions = DynamoStoreOptions;

export interface DynamoTable {
  store: Store;
  /** The marker scan the GitHub promoter keeps across processes, one item per repository in the same table. */
  markerScans(options?: DynamoMarkerScansOptions): MarkerScanStore;
}

export function dynamoTable(options: DynamoTableOptions): DynamoTable {
  const table = tableContext(options.client, options.tableName, options.retentionDays);
  return {
    store: createDynamoStore(options),
    markerScans: (scanOptions) => new DynamoMarkerScans(table, scanOptions),
  };
}
