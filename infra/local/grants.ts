// The route table's table grants, enforced locally: inside an invocation, a DynamoDB request its
// route does not declare fails with AccessDeniedException, as IAM would fail it on AWS. So every
// test and the local server check the declarations on every path they take, not only the paths
// test/infra/grants.test.ts walks. Requests outside an invocation (seeding, imports) are not checked.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../shared/aws/dynamo.ts';
import { tableRefusal } from '../grants.ts';
import { functionId, type Route } from '../routes.ts';
import { currentRoute, runInvocation } from './invocation.ts';

const enforcing = new WeakSet<DynamoDBDocumentClient>();

function enforceOn(client: DynamoDBDocumentClient) {
  if (enforcing.has(client)) return;
  enforcing.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const route = currentRoute();
      const refused = route && tableRefusal(route, context.commandName ?? '', args.input as object);
      if (refused)
        throw Object.assign(
          new Error(
            `User: ${functionId(route)} is not authorized to perform: ${refused} (route table grants)`,
          ),
          { name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 } },
        );
      return next(args);
    },
    { step: 'initialize', name: 'localTableGrants' },
  );
}

/** Runs one invocation of `route`'s function under its table grants. */
export function withTableGrants<T>(route: Route, invoke: () => Promise<T>): Promise<T> {
  enforceOn(dynamo());
  return runInvocation(route, invoke);
}
