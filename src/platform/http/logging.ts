/**
 * pino options: structured JSON logs, the request ID on every line of a request, and redaction of
 * passwords, tokens, secrets and Authorization headers (ASVS 5.0 V16.2.5: no secrets in logs).
 */
import { randomUUID } from 'node:crypto';
import { type FastifyServerOptions, LogController } from 'fastify';

/** Field names whose values never reach a log line, wherever they appear. */
const SECRET_FIELDS = [
  'password',
  'currentpassword',
  'refreshtoken',
  'refresh_token',
  'access_token',
  'token',
  'APIKey',
  'apikey',
  'secret',
  'clientSecret',
  'client_secret',
  'code',
  'id_token',
  'authorization',
  'cookie',
];

/**
 * Query parameters whose values are replaced in logged URLs: secrets; the SAML messages of the
 * HTTP-Redirect binding (`SAMLRequest`, `SAMLResponse`), which name the user (NameID, personal data);
 * and `response_code`, the wallet's same-device return (OpenID4VP 1.0 §8.2, docs/wallet.md "The
 * sign-in page"), a bearer secret of the sign-in. Threat: a reader of the access log completing
 * someone's sign-in, or learning who signed in where.
 */
const SECRET_QUERY =
  /([?&](?:code|response_code|token|access_token|refresh_token|id_token|state|nonce|password|SAMLRequest|SAMLResponse)=)[^&#]*/gi;

/**
 * Redacts secret query parameters from a URL for logging.
 * @param url - a request URL (path and query).
 */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A stable error code of src/platform/core/errors.ts (docs/api.md "Error codes"): no secret, so not redacted. */
const STABLE_CODE = /^ASSENT_ERR_[A-Z_]+$/;

/**
 * The censor of redacted fields: every value becomes `[redacted]`, but for a stable error code in the
 * top-level `code` of a refused request's line (`logError` in errors.ts). Threat: an OAuth authorization
 * code logged under `code`; one never has that form.
 * @param value - the value at a redacted path.
 * @param path - the path, as keys.
 */
function censor(value: unknown, path: string[]): unknown {
  return path.length === 1 && path[0] === 'code' && typeof value === 'string' && STABLE_CODE.test(value)
    ? value
    : '[redacted]';
}

/**
 * Fastify server options for logging and request IDs. An incoming `X-Request-Id` is kept when it
 * is a short token (so a caller cannot inject log syntax); otherwise a UUID is generated.
 * @param level - pino level.
 */
export function loggingOptions(level: string): Pick<FastifyServerOptions, 'logger' | 'genReqId' | 'logController'> {
  return {
    logger: {
      level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'res.headers["set-cookie"]',
          ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
        ],
        censor,
      },
      serializers: {
        req: (req: { method: string; url: string; ip?: string; headers: Record<string, unknown> }) => ({
          method: req.method,
          url: redactUrl(req.url),
          ip: req.ip,
          userAgent: req.headers['user-agent'],
        }),
      },
    },
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    genReqId: (req) => {
      const sent = req.headers['x-request-id'];
      return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
  };
}
