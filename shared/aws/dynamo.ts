// The DynamoDB document client, one per container, created on first use so the embedded runtime
// and the tests can point it at dynalite through the environment first.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { sdkLogger } from './sdk-logger.ts';

let documentClient: DynamoDBDocumentClient | undefined;

export const dynamo = (): DynamoDBDocumentClient => {
  if (!documentClient) {
    const endpoint = config.dynamodbEndpoint;
    const client = new DynamoDBClient({
      region: config.region,
      ...(endpoint ? { endpoint } : {}),
      maxAttempts: 3,
      logger: sdkLogger,
    });
    documentClient = DynamoDBDocumentClient.from(client, {
      // The marshaller tells a plain object by `constructor.name === 'Object'`, so a client's free-form
      // object with its own `constructor` key (`{"constructor": "x"}`) would be refused (a 500); this
      // marshals every object by its own enumerable keys. We store no class instances.
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
    });
  }
  return documentClient;
};

/** Drop the client so the next use reads the environment again (the stores were restarted). */
export const resetDynamo = () => {
  documentClient?.destroy();
  documentClient = undefined;
};
