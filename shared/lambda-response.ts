// Lambda's limit on what a function returns, in one place: the local runtime enforces it, list pages
// and error bodies stay under it.

/** Lambda's limit on a synchronous invocation's response: the JSON of the result object. */
export const LAMBDA_RESPONSE_MAX_BYTES = 6_291_556;

/** What one response body may weigh as Lambda sends it, leaving room for the result's other fields. */
export const RESPONSE_BODY_MAX_BYTES = 5 * 1024 * 1024;

/** The bytes a JSON text takes in Lambda's response: escaped once more, as the body string. */
export const sentBytes = (json: string): number => Buffer.byteLength(JSON.stringify(json)) - 2;

/** Whether a JSON body fits RESPONSE_BODY_MAX_BYTES; measured only where it might not (escaped
 * again, a UTF-16 unit takes at most three bytes). */
export const fitsResponse = (json: string): boolean =>
  json.length * 3 <= RESPONSE_BODY_MAX_BYTES || sentBytes(json) <= RESPONSE_BODY_MAX_BYTES;
