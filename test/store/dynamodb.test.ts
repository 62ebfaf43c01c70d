// The store contract against dynalite, in process: a fresh server and table per suite.
import { createDynamoStore } from '../../lib/store/index.js';
import { startDynalite } from '../support/dynalite.js';
import { storeContract } from './store-contract.js';

const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan'];

storeContract('DynamoDB store on dynalite', async () => {
  const dynamo = await startDynalite();
  return {
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    writes: () => dynamo.writes(),
    reads: () => READ_OPERATIONS.reduce((sum, name) => sum + (dynamo.operations.get(name) ?? 0), 0),
    resetCounts: () => dynamo.resetCounts(),
    stop: () => dynamo.stop(),
  };
});
