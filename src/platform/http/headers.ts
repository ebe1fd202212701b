/**
 * Security headers on every answer (docs/api.md "CORS and security headers"; OWASP ASVS 5.0 V3.4):
 * `X-Content-Type-Options: nosniff` and `X-Frame-Options: DENY` everywhere (errors, 404s and the
 * `/docs` page included), `Strict-Transport-Security` when the public URL is https, and
 * `Cache-Control: no-store` with `Pragma: no-cache` on every answer that carries a token or an API
 * key (RFC 6749 §5.1).
 */
import type { FastifyInstance } from 'fastify';
import type { Operation, OperationConfig } from './policy.js';

/**
 * Operations whose answers carry an access or refresh token or an API key: the logins, refresh,
 * the federation code exchange, and the User record with its `APIKey` (docs/api.md "Resources").
 */
export const TOKEN_OPERATIONS: ReadonlySet<Operation> = new Set<Operation>([
  'users.login',
  'users.login.old',
  'users.admin.login',
  'users.token.refresh',
  'federation.exchange',
  'user.read',
  'user.update',
  'user.image.upload',
]);

/** One year (seconds): the HSTS lifetime browsers' preload lists expect. */
const HSTS_MAX_AGE = 31_536_000;

/**
 * Adds the headers in an `onSend` hook of the root instance, so that every answer gets them.
 * @param app - the root Fastify instance (before any route is registered).
 * @param publicUrl - `ASSENT_PUBLIC_URL`: HSTS is sent only when it is https (RFC 6797 §7.2: never over plain http).
 */
export function installSecurityHeaders(app: FastifyInstance, publicUrl: string): void {
  const hsts = publicUrl.startsWith('https:') ? `max-age=${HSTS_MAX_AGE}; includeSubDomains` : null;
  app.addHook('onSend', async (request, reply) => {
    // MIME sniffing could run a JSON answer or an upload as script or HTML.
    reply.header('X-Content-Type-Options', 'nosniff');
    // Clickjacking: no page of Assent (the reset page, /docs) may be framed by another site.
    reply.header('X-Frame-Options', 'DENY');
    // SSL stripping: once a browser has seen the https origin, it never tries plain http again.
    if (hsts) reply.header('Strict-Transport-Security', hsts);
    const operation = (request.routeOptions.config as OperationConfig | undefined)?.operation;
    // A token or API key kept by a browser or proxy cache could be read by the next user (RFC 6749 §5.1).
    if (operation && TOKEN_OPERATIONS.has(operation)) {
      reply.header('Cache-Control', 'no-store');
      reply.header('Pragma', 'no-cache');
    }
  });
}
