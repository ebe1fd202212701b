/**
 * The edge's answer to errors: the HTTP status and headers of each domain error (src/platform/core/errors.ts, by its
 * stable code), and the one error handler that turns every error into the body the deployed clients read:
 * `{"Code": <status>, "Message": "..."}` (docs/api.md "Errors"), plus the OAuth 2.0
 * `error`/`error_description` pair on token endpoints (RFC 6749 §5.2).
 */

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AssentError, type ErrorCode, type OAuthErrorCode, Unavailable } from '../core/errors.js';
import { databaseErrorCode, isDatabaseUnavailable } from '../db/unavailable.js';
import { safeErrorMessage } from '../util/errors.js';

/** The HTTP status of each error code (docs/api.md "Error codes"). */
const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  ASSENT_ERR_INVALID_REQUEST: 400,
  ASSENT_ERR_UNAUTHENTICATED: 401,
  ASSENT_ERR_ACCESS_DENIED: 403,
  ASSENT_ERR_NOT_FOUND: 404,
  ASSENT_ERR_CONFLICT: 409,
  ASSENT_ERR_GONE: 410,
  ASSENT_ERR_TOO_LARGE: 413,
  ASSENT_ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ASSENT_ERR_RATE_LIMITED: 429,
  ASSENT_ERR_UPSTREAM_FAILURE: 502,
  ASSENT_ERR_UNAVAILABLE: 503,
};

/**
 * The HTTP status that answers a domain error (docs/api.md "Error codes").
 * @param err - the domain error.
 */
export function httpStatusOf(err: AssentError): number {
  return HTTP_STATUS[err.code];
}

/**
 * The response headers a domain error's answer carries: `Retry-After` in whole seconds (RFC 9110 §10.2.3),
 * `WWW-Authenticate` with the scheme to present (RFC 6750 §3), and `Connection: close` when the rest of the
 * request body is not read.
 * @param err - the domain error.
 */
export function httpHeadersOf(err: AssentError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err.challenge) headers['WWW-Authenticate'] = err.challenge;
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  if (err.closeConnection) headers.Connection = 'close';
  return headers;
}

/** The code of each status of `HTTP_STATUS` (one code per status), for the framework's own errors. */
const CODE_OF_STATUS: ReadonlyMap<number, ErrorCode> = new Map(
  Object.entries(HTTP_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

/**
 * Writes the request's error log line: the stable code (`code`, docs/api.md "Error codes") and the status,
 * info for a 4xx, warn for a 5xx. The message is not logged: the code says what went wrong.
 */
function logCode(request: FastifyRequest, code: ErrorCode, statusCode: number): void {
  if (statusCode >= 500) request.log.warn({ code, statusCode }, 'request failed');
  else request.log.info({ code, statusCode }, 'request refused');
}

/**
 * Logs the stable code of a request refused with a domain error (the request's error log line).
 * @param request - the refused request.
 * @param err - the domain error it is answered with.
 */
export function logError(request: FastifyRequest, err: AssentError): void {
  logCode(request, err.code, httpStatusOf(err));
}

/**
 * Logs the code of a framework error's status (a schema's refusal is `ASSENT_ERR_INVALID_REQUEST`), when
 * the status has one (405 has none).
 */
function logStatus(request: FastifyRequest, statusCode: number): void {
  const code = CODE_OF_STATUS.get(statusCode);
  if (code) logCode(request, code, statusCode);
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
 * Sends the answer of a domain error: its status, headers and body (docs/api.md "Errors"). Same shape as the handler.
 * @param reply - the Fastify reply.
 * @param err - the error to send.
 */
export function sendHttpError(reply: FastifyReply, err: AssentError): FastifyReply {
  const oauth = Boolean((reply.request.routeOptions.config as OAuthRouteConfig | undefined)?.oauth);
  const status = httpStatusOf(err);
  return reply
    .code(status)
    .headers(httpHeadersOf(err))
    .type('application/json')
    .send({ ...errorBody(status, err.message, oauth, err.oauthError), ...err.extra });
}

/**
 * Installs the error and not-found handlers. Unknown errors become a 500 with a fixed message:
 * no stack trace and no internal detail reaches the client (ASVS 5.0 V16.5.1).
 * @param app - the Fastify instance.
 */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AssentError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AssentError) {
      logError(request, error);
      return sendHttpError(reply, error);
    }
    const status = error.statusCode ?? 500;
    const oauth = Boolean((request.routeOptions.config as OAuthRouteConfig | undefined)?.oauth);
    if (error.validation) {
      logStatus(request, 400);
      const message = `Invalid request: ${error.message}`;
      return reply
        .code(400)
        .type('application/json')
        .send(errorBody(400, message, oauth, 'invalid_request'));
    }
    const multipartError = error.code ? MULTIPART_ERRORS[error.code] : undefined;
    if (multipartError) {
      const [code, message] = multipartError;
      logStatus(request, code);
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
      logStatus(request, status);
      return reply
        .code(status)
        .type('application/json')
        .send(errorBody(status, message, oauth));
    }
    if (isDatabaseUnavailable(error)) {
      const unavailable = new Unavailable(DATABASE_RETRY_AFTER_SECONDS);
      // An outage, not a bug: one warn line, with the path but not the query string (it may carry tokens).
      request.log.warn(
        {
          code: unavailable.code,
          err: { code: databaseErrorCode(error), message: safeErrorMessage(error) },
          method: request.method,
          path: request.url.split('?')[0],
        },
        'database unavailable',
      );
      return sendHttpError(reply, unavailable);
    }
    // Query errors carry their parameters (hashes, tokens): log the driver's message, not the query.
    request.log.error({ err: { type: error.name, message: safeErrorMessage(error) } }, 'unhandled error');
    return reply
      .code(500)
      .type('application/json')
      .send(errorBody(500, 'Internal server error', oauth));
  });
  app.setNotFoundHandler((request, reply) => {
    logStatus(request, 404);
    reply
      .code(404)
      .type('application/json')
      .send(errorBody(404, 'Not found', false));
  });
}
