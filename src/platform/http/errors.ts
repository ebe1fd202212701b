/**
 * Typed HTTP errors and the one error handler that turns them into the body the deployed
 * clients read: `{"Code": <status>, "Message": "..."}` (docs/api.md "Errors"), plus the OAuth 2.0
 * `error`/`error_description` pair on token endpoints (RFC 6749 §5.2).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseErrorCode, isDatabaseUnavailable } from '../db/unavailable.js';
import { safeErrorMessage } from '../util/errors.js';

/** OAuth 2.0 error codes used by Assent (RFC 6749 §5.2). */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'invalid_client'
  | 'unauthorized_client'
  | 'access_denied'
  | 'temporarily_unavailable';

/** An error with an HTTP status and a message safe to show to the caller. */
export class HttpError extends Error {
  override name = 'HttpError';
  /**
   * @param statusCode - HTTP status (4xx).
   * @param message - human text for `Message`; never contains secrets.
   * @param oauthError - RFC 6749 §5.2 code, added as `error` on token endpoints.
   * @param headers - extra response headers, e.g. `Retry-After`.
   */
  constructor(
    readonly statusCode: number,
    message: string,
    readonly oauthError?: OAuthErrorCode,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 400: the request is malformed. */
export class BadRequest extends HttpError {
  constructor(message: string, oauthError?: OAuthErrorCode) {
    super(400, message, oauthError);
  }
}

/** 401: no valid credentials. */
export class Unauthorized extends HttpError {
  constructor(message = 'Unauthorized', oauthError?: OAuthErrorCode) {
    super(401, message, oauthError, { 'WWW-Authenticate': 'Bearer' });
  }
}

/** 403: authenticated, but the access policy does not allow this operation. */
export class Forbidden extends HttpError {
  constructor(message = 'Forbidden') {
    super(403, message, 'access_denied');
  }
}

/** 404: nothing the caller may see has that name (docs/api.md "Identifiers"). */
export class NotFound extends HttpError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}

/** 409: the request conflicts with what exists (e.g. a username already taken). */
export class Conflict extends HttpError {
  constructor(message = 'Conflict') {
    super(409, message);
  }
}

/** 429: throttled; `Retry-After` in whole seconds (RFC 9110 §10.2.3). */
export class TooManyRequests extends HttpError {
  /** @param retryAfterSeconds - seconds until a new attempt is accepted (rounded up, at least 1). */
  constructor(retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(429, 'Too many attempts; try again later', 'temporarily_unavailable', { 'Retry-After': String(seconds) });
  }
}

/** 503: the database is unreachable or dropped the connection; `Retry-After` in whole seconds (RFC 9110 §15.6.4). */
export class ServiceUnavailable extends HttpError {
  /** @param retryAfterSeconds - seconds after which a retry may succeed. */
  constructor(retryAfterSeconds = DATABASE_RETRY_AFTER_SECONDS) {
    super(503, 'The service is temporarily unavailable; try again later', 'temporarily_unavailable', {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/** Seconds a client is told to wait after a database outage answer: a restart or failover takes a few. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** Route config flag: errors of this route carry the OAuth 2.0 `error` fields. */
export interface OAuthRouteConfig {
  oauth?: boolean;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  413: 'Request body too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
};

/**
 * Status and message of the errors of `@fastify/multipart` (codes `FST_*`), whose own messages
 * ("reach files limit") are unclear, and one of which (not multipart) would be a 406.
 */
const MULTIPART_ERRORS: Record<string, [number, string]> = {
  FST_REQ_FILE_TOO_LARGE: [413, 'The uploaded file is larger than this operation accepts'],
  FST_FILES_LIMIT: [400, 'The form carries more files than this operation accepts'],
  FST_PARTS_LIMIT: [400, 'The form carries more parts than this operation accepts'],
  FST_FIELDS_LIMIT: [400, 'The form carries more fields than this operation accepts'],
  FST_PROTO_VIOLATION: [400, 'A form field has a forbidden name'],
  FST_INVALID_JSON_FIELD_ERROR: [400, 'A form field declared as JSON is not valid JSON'],
  FST_MP_PREMATURE_CLOSE: [400, 'The request ended before the form was complete'],
  FST_INVALID_MULTIPART_CONTENT_TYPE: [415, 'The body must be multipart/form-data'],
};

/**
 * The error body of docs/api.md "Errors": `{"Code", "Message"}`, plus RFC 6749 §5.2 `error` and
 * `error_description` when `oauth` is set.
 * @param statusCode - HTTP status.
 * @param message - human text, never a secret.
 */
export function errorBody(
  statusCode: number,
  message: string,
  oauth: boolean,
  oauthError?: OAuthErrorCode,
): Record<string, unknown> {
  const body: Record<string, unknown> = { Code: statusCode, Message: message };
  if (oauth) {
    body.error = oauthError ?? (statusCode === 401 ? 'invalid_grant' : 'invalid_request');
    body.error_description = message;
  }
  return body;
}

/**
 * Sends an error body directly (for hooks that run before routing). Same shape as the handler.
 * @param reply - the Fastify reply.
 * @param err - the error to send.
 */
export function sendHttpError(reply: FastifyReply, err: HttpError): FastifyReply {
  const oauth = Boolean((reply.request.routeOptions.config as OAuthRouteConfig | undefined)?.oauth);
  return reply
    .code(err.statusCode)
    .headers(err.headers)
    .type('application/json')
    .send(errorBody(err.statusCode, err.message, oauth, err.oauthError));
}

/**
 * Installs the error and not-found handlers. Unknown errors become a 500 with a fixed message:
 * no stack trace and no internal detail reaches the client (ASVS 5.0 V16.5.1).
 * @param app - the Fastify instance.
 */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) return sendHttpError(reply, error);
    const status = error.statusCode ?? 500;
    const oauth = Boolean((request.routeOptions.config as OAuthRouteConfig | undefined)?.oauth);
    if (error.validation) {
      const message = `Invalid request: ${error.message}`;
      return reply
        .code(400)
        .type('application/json')
        .send(errorBody(400, message, oauth, 'invalid_request'));
    }
    const multipartError = error.code ? MULTIPART_ERRORS[error.code] : undefined;
    if (multipartError) {
      const [code, message] = multipartError;
      return reply
        .code(code)
        .type('application/json')
        .send(errorBody(code, message, oauth));
    }
    if (status >= 400 && status < 500) {
      const message =
        error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? 'Invalid request: the body is not valid JSON'
          : (STATUS_TEXT[status] ?? 'Bad request');
      return reply
        .code(status)
        .type('application/json')
        .send(errorBody(status, message, oauth));
    }
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: one warn line, with the path but not the query string (it may carry tokens).
      request.log.warn(
        {
          err: { code: databaseErrorCode(error), message: safeErrorMessage(error) },
          method: request.method,
          path: request.url.split('?')[0],
        },
        'database unavailable',
      );
      return sendHttpError(reply, new ServiceUnavailable());
    }
    // Query errors carry their parameters (hashes, tokens): log the driver's message, not the query.
    request.log.error({ err: { type: error.name, message: safeErrorMessage(error) } }, 'unhandled error');
    return reply
      .code(500)
      .type('application/json')
      .send(errorBody(500, 'Internal server error', oauth));
  });
  app.setNotFoundHandler((_request, reply) => {
    reply
      .code(404)
      .type('application/json')
      .send(errorBody(404, 'Not found', false));
  });
}
