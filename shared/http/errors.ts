// The typed HTTP error family. Thrown anywhere; turned into a response in one place (httpErrorMapper
// in route.ts). Their texts, and the generic ones answered without an error (STATUS_TEXT), live here so
// every route says the same thing.

/** Starlette's texts for answers that carry no detail of their own: the unmatched route's 404 and 405,
 * and a failure's 500 (the route pipeline's, the local server's). */
export const STATUS_TEXT = {
  404: 'Not Found',
  405: 'Method Not Allowed',
  500: 'Internal Server Error',
} as const;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = new.target.name;
  }
}

export const AUTH_CHALLENGE = { 'www-authenticate': 'Bearer' } as const;

export class NotAuthenticatedError extends HttpError {
  constructor() {
    super(401, 'Not authenticated', AUTH_CHALLENGE);
  }
}

export class InvalidCredentialsError extends HttpError {
  constructor() {
    super(401, 'Could not validate credentials', AUTH_CHALLENGE);
  }
}

/** Unknown ids and other users' resources answer alike: existence is never revealed. */
export class NotFoundError extends HttpError {
  constructor(resource: string) {
    super(404, `${resource} not found`);
  }
}

export class ForbiddenError extends HttpError {
  constructor(detail: string) {
    super(403, detail);
  }
}

/** The resource's state refuses the request; with `retryAfterSeconds`, a state that ends by then. */
export class ConflictError extends HttpError {
  constructor(detail: string, retryAfterSeconds?: number) {
    super(409, detail, retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) });
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(limitBytes: number) {
    super(413, `Request body too large: the limit is ${limitBytes} bytes`);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(detail = 'Unsupported Media Type') {
    super(415, detail);
  }
}

export class BadRequestError extends HttpError {
  constructor(detail = 'There was an error parsing the body') {
    super(400, detail);
  }
}

/** A quota of the caller's is used up until `retryAfterSeconds` from now. */
export class TooManyRequestsError extends HttpError {
  constructor(detail: string, retryAfterSeconds: number) {
    super(429, detail, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(retryAfterSeconds = 1) {
    super(503, 'Service temporarily unavailable, retry later', { 'retry-after': String(retryAfterSeconds) });
  }
}

/** One FastAPI validation item: keys in FastAPI's order (type, loc, msg, input, ctx). */
export interface ValidationItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

export class RequestValidationError extends HttpError {
  constructor(readonly items: ValidationItem[]) {
    super(422, items);
  }
}
