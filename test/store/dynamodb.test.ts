// The store contract against dynalite, in process: a fresh server and table per suite.
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoStore } from '../../lib/store/index.js';
import { keys } from '../../lib/store/dynamodb/table.js';
import { startDynalite } from '../support/dynalite.js';
import { storeContract } from './store-contract.js';

const READ_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan'];

storeContract('DynamoDB store on dynalite', async () => {
  const dynamo = await startDynalite();
  const documents = DynamoDBDocumentClient.from(dynamo.client);
  return {
    store: createDynamoStore({ client: dynamo.client, tableName: dynamo.tableName }),
    writes: () => dynamo.writes(),
    reads: () => READ_OPERATIONS.reduce((sum, name) => sum + (dynamo.operations.get(name) ?? 0), 0),
    resetCounts: () => dynamo.resetCounts(),
    overwriteLease: async (pipeline, env, revision, leaseExpiresAt) => {
      await documents.send(
        new UpdateCommand({
          TableName: dynamo.tableName,
          Key: keys.promotion(pipeline, env, revision),
          UpdateExpression: 'SET leaseExpiresAt = :lease',
          ExpressionAttributeValues: { ':lease': leaseExpiresAt },
        }),
      );
    },
    stop: () => dynamo.stop(),
  };
});
