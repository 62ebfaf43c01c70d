// What the verifier and the poller build on: the clients of aws.ts and the whole DynamoDB table on them (the Store
// and the GitHub marker scan). Apart from aws.ts because the receiver reads only a few items of the table
// (`createReceiverStore`): importing this module would put every entity module of the Store in its bundle.
import { dynamoTable, type DynamoTable } from '../store/index.js';
import { awsClients, type AwsClients } from './aws.js';
import { perContainer } from './per-container.js';

export interface AwsDependencies extends AwsClients {
  /** The Store and the GitHub marker scan, one DynamoDB client for both. */
  table: DynamoTable;
}

/** Built on first use and reused by later invocations of the same warm container. */
export const awsDependencies: () => AwsDependencies = perContainer(() => {
  const clients = awsClients();
  return { ...clients, table: dynamoTable(clients.dynamo) };
});
