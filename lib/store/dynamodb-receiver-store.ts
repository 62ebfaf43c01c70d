// The receiver's part of the DynamoDB Store: the entity modules of createDynamoStore whose methods the receiver calls
// (`ReceiverStore`), and no other. The receiver Lambda builds this one and imports this module directly, not through
// lib/store/index.ts, so the modules it never needs (promotions, statuses, polls, freezes, notifications, the marker
// scans) and their schemas stay out of its bundle and of what each cold start compiles and runs.
import { DynamoApprovals } from './dynamodb/approvals.js';
import { DynamoAuditLog } from './dynamodb/audit.js';
import { DynamoConfigSources } from './dynamodb/config-sources.js';
import { DynamoConfiguration } from './dynamodb/configuration.js';
import type { DynamoStoreOptions } from './dynamodb/store.js';
import { DynamoServedInputs } from './dynamodb/served-inputs.js';
import { tableContext } from './dynamodb/table.js';
import type { ReceiverStore } from './port.js';

export function createReceiverStore(options: DynamoStoreOptions): ReceiverStore {
  const table = tableContext(options.client, options.tableName, options.retentionDays);
  const configuration = new DynamoConfiguration(table);
  const approvals = new DynamoApprovals(table);
  const audit = new DynamoAuditLog(table);
  const configSources = new DynamoConfigSources(table);
  const servedInputs = new DynamoServedInputs(table);
  return {
    getCluster: (...args) => configuration.getCluster(...args),
    findTargets: (...args) => configuration.findTargets(...args),
    getPipeline: (...args) => configuration.getPipeline(...args),
    getApproval: (...args) => approvals.getApproval(...args),
    approve: (...args) => approvals.approve(...args),
    appendAudit: (...args) => audit.appendAudit(...args),
    getConfigSource: (...args) => configSources.getConfigSource(...args),
    getServedInput: (...args) => servedInputs.getServedInput(...args),
  };
}
