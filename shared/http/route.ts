// The one HTTP pipeline every handler is wrapped in. Order (DESIGN.md §3): request context →
// bearer check (401) → body size (413) → body parsing (JSON or multipart, base64-aware) →
// validation of path, query and body (422) → handler → one error mapper.

import middy, { type MiddlewareObj, type Request } from '@middy/core';
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as v from 'valibot';
import { fitsResponse, RESPONSE_BODY_MAX_BYTES, sentBytes } from '../lambda-response.ts';
import { log, setLogRequestId } from '../log.ts';
import { bareMediaType } from '../media-type.ts';
import { authenticate, type Caller } from './auth.ts';
import { bodyBytes, bodyEncoding } from './body.ts';
import {
  BadRequestError,
  HttpError,
  PayloadTooLargeError,
  RequestValidationError,
  ServiceUnavailableError,
  STATUS_TEXT,
  type ValidationItem,
} from './errors.ts';
import type { FormBody } from './multipart.ts';
import {
  BodyTooDeepError,
  decodePythonJson,
  encodePythonJson,
  MAX_JSON_ESCAPE_GROWTH,
  unescapedJsonBytes,
} from './python-json.ts';
import { hideSecretInputs } from './secret-inputs.ts';
import { cutEchoes, echoNumberLiterals, validateRequest } from './validation.ts';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

/**
 * A JSON body ends up in one DynamoDB item (400 KB at most). Strings take no more room there than in
 * the JSON that carried them; numbers deep in lists can take up to twice it (`[[1]]` is 5 bytes of
 * JSON, 10 in an item), which is why free-form objects are bounded on their own (`dict()`). So a body
 * of 256 KiB always fits, with room for the record's own fields. (API Gateway takes 10 MB; Lambda's
 * synchronous payload is 6 MB; the multipart routes declare their own limits.)
 */
export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

export interface RouteOptions<
  P extends v.GenericSchema | undefined,
  Q extends v.GenericSchema | undefined,
  B extends v.GenericSchema | undefined,
  F extends v.GenericSchema | undefined,
  H extends v.GenericSchema | undefined = undefined,
> {
  path?: P;
  query?: Q;
  /** Header parameters, keyed by lower-case header name (FastAPI's `Header()`): validated with the
   * rest (loc `["header", name]`) and listed in the OpenAPI document. */
  header?: H;
  /** JSON body schema. */
  body?: B;
  /** multipart/form-data body (see multipart.ts); a route may take both (the content type picks). */
  form?: FormBody<NonNullable<F>>;
  /** Success status (200 unless stated). */
  status?: number;
  /** The success body's schema: the OpenAPI document and the response checks in the tests use it. */
  response?: v.GenericSchema;
  /** A success body that is no JSON (a page, a script): its media types, for the OpenAPI document. */
  mediaTypes?: string[];
  /** One line for the OpenAPI document. */
  summary?: string;
  /** Statuses beyond those the route's shape implies (errorStatuses, shared/openapi/document.ts): 401
   * unless `auth: false`, 404 with path ids, 422 with any input, 413 with a body or form, 400 with a
   * JSON body, 415 with a form, 503 with a table or bucket grant. */
  errors?: number[];
  /** Largest accepted body, after base64 decoding (a JSON body stays at DEFAULT_BODY_LIMIT_BYTES). */
  maxBodyBytes?: number;
  /** Body fields holding secrets: never echoed back in a 422 (masked as `**********`). */
  secretFields?: string[];
  /** false for the public routes (the OpenAPI document, the docs page and its assets, unmatched
   * requests) and for those that authenticate another way (`verify`: the signed avatar callback). */
  auth?: boolean;
  /** With `auth: false`: the other way (e.g. a signature over the raw body), run where the bearer
   * check would run, so an unauthenticated request learns nothing about the body schema. */
  verify?: RequestVerifier;
}

/** A route's own authentication: the check, and the OpenAPI security scheme that tells a client what
 * to send (`definition` is the scheme object, e.g. an `apiKey` header and its format). */
export interface RequestVerifier {
  check: (event: Event) => void | Promise<void>;
  scheme: { name: string; definition: Record<string, unknown> };
}

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

export interface RouteRequest<P, Q, B, F, H = undefined> {
  caller: Caller;
  path: Out<P>;
  query: Out<Q>;
  /** The validated header parameters the route declared. */
  header: Out<H>;
  /** The JSON body, when the request carried one. */
  body: Out<B>;
  /** The form, when the request was multipart. */
  form: Out<F>;
  event: Event;
  /** Milliseconds left before the function times out (work with its own deadline stops earlier). */
  remainingMs: () => number;
}

/** A handler may return a plain body (sent with the route's status) or a full reply. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

interface State {
  caller?: Caller;
  input?: { path: unknown; query: unknown; header: unknown; body: unknown; form: unknown };
  started: number;
}
/** Middlewares hand their results to the handler on the invocation's context object. */
type RouteContext = Context & { route?: State };
type Req = Request<Event, Result, Error, RouteContext>;

/** The caller of a route that authenticates another way (`auth: false`). */
const ANONYMOUS: Caller = { userId: '' };

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Result => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const mediaType = (event: Event) => bareMediaType(event.headers?.['content-type']);
const isJson = (type: string) =>
  type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
const isMultipart = (type: string) => type === 'multipart/form-data';

const rawBody = (event: Event): Buffer | undefined =>
  event.body === undefined || event.body === null ? undefined : bodyBytes(event);

// ---- middlewares, one job each --------------------------------------------------------------

const requestContext = (): MiddlewareObj<Event, Result, Error, Context> => ({
  before: (request: Req) => {
    const requestId = request.event.requestContext?.requestId ?? request.context.awsRequestId;
    setLogRequestId(requestId);
    request.context.route = { started: performance.now() };
  },
  after: (request: Req) => logAccess(request),
  onError: (request: Req) => logAccess(request),
});

const logAccess = (request: Req) => {
  const { event, response } = request;
  log.info('request', {
    method: event.requestContext?.http?.method,
    route: event.routeKey,
    status: response?.statusCode,
    ms: Math.round((performance.now() - (request.context.route?.started ?? performance.now())) * 100) / 100,
  });
};

/** An authenticated answer is the caller's own data, errors included: no browser or shared cache may
 * keep it (OWASP's `Cache-Control: no-store` for sensitive responses). */
const privateResponses = (): MiddlewareObj<Event, Result, Error, Context> => {
  const noStore = (request: Req) => {
    if (request.response)
      request.response.headers = { 'cache-control': 'no-store', ...request.response.headers };
  };
  return { after: noStore, onError: noStore };
};

const bearerAuthentication = (): MiddlewareObj<Event, Result, Error, Context> => ({
  before: async (request: Req) => {
    request.context.route!.caller = await authenticate(request.event.headers?.authorization);
  },
});

const requestVerification = (verify: RequestVerifier): MiddlewareObj<Event, Result, Error, Context> => ({
  before: async (request: Req) => {
    await verify.check(request.event);
  },
});

const bodySizeLimit = (maxBytes: number): MiddlewareObj<Event, Result, Error, Context> => ({
  before: (request: Req) => {
    const { body } = request.event;
    if (!body) return;
    // Decoded size without decoding (base64: 3 bytes in every 4 characters, less the `=` padding).
    const size = Buffer.byteLength(body, bodyEncoding(request.event));
    if (!isJson(mediaType(request.event))) {
      if (size > maxBytes) throw new PayloadTooLargeError(maxBytes);
      return;
    }
    // A route's larger limit is for its multipart form; a JSON body has the JSON limit on every route,
    // on what it says rather than how it is escaped (the same room for every client's encoder).
    const limit = Math.min(maxBytes, DEFAULT_BODY_LIMIT_BYTES);
    if (size <= limit) return;
    if (size > limit * MAX_JSON_ESCAPE_GROWTH || unescapedJsonBytes(rawBody(request.event)!) > limit)
      throw new PayloadTooLargeError(limit);
  },
});

// Our own JSON parsing rather than @middy/http-json-body-parser: FastAPI clients need `json_invalid`
// with CPython's message and position, and a body sent with another content type is not parsed.
const parseJsonBody = (event: Event): unknown => {
  const bytes = rawBody(event);
  if (bytes === undefined || bytes.length === 0) return undefined;
  const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  let decoded: string;
  try {
    decoded = text.decode(bytes);
  } catch {
    throw new BadRequestError();
  }
  if (!isJson(mediaType(event))) return decoded; // FastAPI validates the raw text, which fails as a model.
  let result: ReturnType<typeof decodePythonJson>;
  try {
    result = decodePythonJson(decoded);
  } catch (error) {
    if (error instanceof BodyTooDeepError) throw new BadRequestError();
    throw error;
  }
  if (!result.ok)
    throw new RequestValidationError([
      {
        type: 'json_invalid',
        loc: ['body', result.pos],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: result.msg },
      },
    ]);
  return result.value;
};

type Schemas = {
  path?: v.GenericSchema;
  query?: v.GenericSchema;
  header?: v.GenericSchema;
  body?: v.GenericSchema;
  form?: FormBody;
};

const requestValidator = (schemas: Schemas): MiddlewareObj<Event, Result, Error, Context> => ({
  before: async (request: Req) => {
    const { event } = request;
    const type = mediaType(event);
    const { form } = schemas;
    // A route taking both reads JSON as the body and anything else as the form (FastAPI's File()).
    const asForm = form !== undefined && (isMultipart(type) || !schemas.body || !isJson(type));
    let body: unknown;
    if (asForm) body = await form.parse(event);
    else if (schemas.body) body = parseJsonBody(event);
    const input = validateRequest(
      {
        path: schemas.path,
        query: schemas.query,
        header: schemas.header,
        body: asForm ? form.schema : schemas.body,
        bodyIsForm: asForm,
      },
      {
        path: event.pathParameters as Record<string, string>,
        query: queryParameters(event),
        header: event.headers ?? {},
        body,
      },
    );
    request.context.route!.input = {
      path: input.path,
      query: input.query,
      header: input.header,
      body: asForm ? undefined : input.body,
      form: asForm ? input.body : undefined,
    };
  },
});

/** Repeated query keys: the last value wins, as in FastAPI (API Gateway would join them with commas). */
const queryParameters = (event: Event): Record<string, string> => {
  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(event.rawQueryString ?? '')) query[key] = value;
  return query;
};

type Failure = Parameters<typeof isTransientError>[0] & { code?: unknown };

/**
 * A dependency that stayed throttled, failing or unreachable through the SDK's retries: what the
 * SDK's own retry strategy counts as throttling (429 too), transient (5xx, timeouts, Node's socket and
 * DNS failures, also as a wrapped `cause`) or a server error. One classification, the SDK's.
 */
const isUnavailable = (cause: Failure) =>
  isThrottlingError(cause) || isTransientError(cause) || isServerError(cause);

/** Node's code for a socket or DNS failure (ECONNRESET, ENOTFOUND…), on the error or what it wraps. */
const networkCode = (error: Failure): string | undefined =>
  typeof error.code === 'string' ? error.code : error.cause ? networkCode(error.cause as Failure) : undefined;

/** The one place errors become responses. Only sub-500 texts reach clients. */
const httpErrorMapper = (): MiddlewareObj<Event, Result, Error, Context> => ({
  onError: (request: Req) => {
    const cause = request.error as Failure;
    let error: HttpError | undefined;
    if (cause instanceof HttpError)
      error = cause; // logged, where needed, where it was thrown
    else if (isUnavailable(cause)) {
      // The log names what failed (ThrottlingException, ECONNRESET…), not the 503 it became.
      log.warn('dependency unavailable', {
        error: cause.name,
        code: networkCode(cause),
      });
      error = new ServiceUnavailableError();
    }
    if (error) {
      // After hideSecretInputs (its onError runs first): a masked secret stays masked.
      if (error instanceof RequestValidationError) {
        if (isJson(mediaType(request.event)))
          echoNumberLiterals(error.items, rawBody(request.event)?.toString('utf8'));
        request.response = validationJson(error);
      } else request.response = errorJson(error.status, { detail: error.detail }, error.headers);
      return;
    }
    log.error('unhandled error', { error: cause.name, error_message: cause.message, stack: cause.stack });
    request.response = errorJson(500, { detail: STATUS_TEXT[500] });
  },
});

/** Error bodies only: echoed inputs may hold lone surrogates and float literals (encodePythonJson),
 * which the success path, JSON.stringify's, never pays for. */
const errorJson = (status: number, body: unknown, headers: Record<string, string> = {}): Result => ({
  statusCode: status,
  headers: { 'content-type': 'application/json', ...headers },
  body: encodePythonJson(body),
});

/**
 * A 422 as FastAPI renders it, unless its echoes would pass Lambda's response limit (a 1 MiB form's
 * text part where a file belongs, its control characters six bytes each once escaped): a function
 * error, a 500 for a client's mistake. Then its long strings and keys are cut. Where even that does
 * not fit (a body of thousands of short keys or values of control characters, echoed whole by each
 * missing field's item), an item whose echo passes its share of the response echoes null.
 */
const validationJson = (error: RequestValidationError): Result => {
  const render = (items: ValidationItem[]) => errorJson(error.status, { detail: items }, error.headers);
  const whole = render(error.items);
  if (fitsResponse(whole.body!)) return whole;
  const cut = cutEchoes(error.items);
  const fitted = render(cut);
  if (fitsResponse(fitted.body!)) return fitted;
  const share = RESPONSE_BODY_MAX_BYTES / (2 * cut.length);
  return render(
    cut.map((item) => (sentBytes(encodePythonJson(item.input)) > share ? { ...item, input: null } : item)),
  );
};

// ---- composition --------------------------------------------------------------------------

export function httpRoute<
  P extends v.GenericSchema | undefined = undefined,
  Q extends v.GenericSchema | undefined = undefined,
  B extends v.GenericSchema | undefined = undefined,
  F extends v.GenericSchema | undefined = undefined,
  H extends v.GenericSchema | undefined = undefined,
>(options: RouteOptions<P, Q, B, F, H>, handle: (request: RouteRequest<P, Q, B, F, H>) => Promise<unknown>) {
  const status = options.status ?? 200;
  const pipeline = middy<Event, Result, Error, Context>().use(requestContext());
  // Before the mapper, so its onError runs after the mapper's and sees the error response.
  if (options.auth !== false) pipeline.use(privateResponses());
  pipeline.use(httpErrorMapper());
  // Used after the mapper, so its onError runs before the mapper's (Middy runs onError in reverse).
  if (options.secretFields)
    pipeline.use(hideSecretInputs(options.secretFields) as MiddlewareObj<Event, Result, Error, Context>);
  if (options.auth !== false) pipeline.use(bearerAuthentication());
  else if (options.verify) pipeline.use(requestVerification(options.verify));
  // A route that declares no body ignores one, as FastAPI does (no 400/413 it does not document).
  if (options.body || options.form)
    pipeline.use(bodySizeLimit(options.maxBodyBytes ?? DEFAULT_BODY_LIMIT_BYTES));
  pipeline.use(
    requestValidator({
      path: options.path,
      query: options.query,
      header: options.header,
      body: options.body,
      form: options.form,
    }),
  );
  const handler = pipeline.handler(async (event, context) => {
    const state = (context as RouteContext).route!;
    const input = state.input!;
    const result = await handle({
      caller: state.caller ?? ANONYMOUS,
      path: input.path as Out<P>,
      query: input.query as Out<Q>,
      header: input.header as Out<H>,
      body: input.body as Out<B>,
      form: input.form as Out<F>,
      event,
      remainingMs: () => context.getRemainingTimeInMillis(),
    });
    if (!(result instanceof Reply)) return json(status, result);
    if (typeof result.body === 'string' && !result.headers['content-type']?.includes('json'))
      return { statusCode: result.status, headers: result.headers, body: result.body };
    return json(result.status, result.body, result.headers);
  });
  // The route's declaration travels with its handler: the OpenAPI generator reads it from here.
  return Object.assign(handler, {
    route: options as RouteOptions<
      v.GenericSchema,
      v.GenericSchema,
      v.GenericSchema,
      v.GenericSchema,
      v.GenericSchema
    >,
  });
}
