// Loads and invokes the same handler modules Lambda runs, with a Lambda-like context.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { LAMBDA_RESPONSE_MAX_BYTES } from '../../shared/lambda-response.ts';
import { FUNCTION_DEFAULTS, functionId, type Route } from '../routes.ts';
import { withTableGrants } from './grants.ts';

export type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Where a route's handler comes from: its source module by default; the bundle test loads the
 * function as esbuild built it (test/infra/bundles.test.ts). */
export type HandlerLoader = (route: Route) => Promise<Handler>;

const loaded = new Map<string, Promise<Handler>>();

export function loadHandler(route: Route): Promise<Handler> {
  let handler = loaded.get(route.entry);
  if (!handler) {
    const url = new URL(`../../functions/${route.entry}.ts`, import.meta.url);
    handler = import(url.href).then((module: { handler?: Handler }) => {
      // Lambda's Runtime.HandlerNotFound: a module that loads but exports no handler fails as well.
      if (typeof module.handler !== 'function') throw new Error(`${route.entry} exports no handler`);
      return module.handler;
    });
    loaded.set(route.entry, handler);
  }
  return handler;
}

export function lambdaContext(
  route: Route,
  timeoutSeconds = route.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds,
): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const name = functionId(route);
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${name}`,
    memoryLimitInMB: String(route.memoryMb ?? FUNCTION_DEFAULTS.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** What API Gateway answers when the function fails (here: a module that does not load, or a
 * response past Lambda's limit). */
const FUNCTION_FAILED: APIGatewayProxyStructuredResultV2 = {
  statusCode: 500,
  headers: { 'content-type': 'application/json' },
  body: '{"message":"Internal Server Error"}',
};

/** Load failures already logged: a loader keeps a failed load (Node.js keeps a failed import until
 * the process ends), so every request meets the same error, and it is said once. */
const reported = new WeakSet<object>();

export async function invoke(route: Route, event: APIGatewayProxyEventV2, load: HandlerLoader = loadHandler) {
  let handler: Handler;
  try {
    handler = await load(route);
  } catch (error) {
    // On AWS the function fails to initialise (Runtime.ImportModuleError) and API Gateway answers
    // its own 500. The log names the function and the cause (the loader's message: a module path, a
    // syntax error's place), never the event.
    const failure = error instanceof Error ? error : new Error(String(error));
    if (!reported.has(failure)) {
      reported.add(failure);
      const code = (failure as NodeJS.ErrnoException).code;
      console.error(
        `${route.entry}: the function's module failed to load (${code ?? failure.name}): ${failure.message}`,
      );
    }
    return FUNCTION_FAILED;
  }
  const result = await withTableGrants(route, () => handler(event, lambdaContext(route)));
  // As on AWS, a response past the limit is a function error: measured only where it may be one
  // (the result's JSON is at most about three bytes per character of the body).
  if ((result.body?.length ?? 0) * 3 > LAMBDA_RESPONSE_MAX_BYTES) {
    const bytes = Buffer.byteLength(JSON.stringify(result));
    if (bytes > LAMBDA_RESPONSE_MAX_BYTES) {
      console.error(
        `${route.entry}: response of ${bytes} bytes is past Lambda's ${LAMBDA_RESPONSE_MAX_BYTES}`,
      );
      return FUNCTION_FAILED;
    }
  }
  return result;
}
