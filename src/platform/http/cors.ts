/**
 * CORS (Fetch standard, "CORS protocol"): a dashboard or app served from another origin may call
 * the API when its origin is allowed: listed in `ASSENT_CORS_ORIGINS`, or the origin of an
 * organisation's registered app redirect URI (`WebOrigins`). Allowed origins are echoed in
 * `Access-Control-Allow-Origin`, never `*` and never `null`; every answer varies on `Origin`.
 *
 * Preflights are answered in the plugin's `onRequest` hook, added before the auth guard's own
 * `onRequest` hook and so run first, since a browser sends them without the Authorization header;
 * the 401s of the guard then carry the CORS headers too, so a dashboard can read them. The plugin's catch-all
 * `OPTIONS *` route only serves the preflights of origins that are not allowed: it answers the JSON 404 with no CORS
 * header. It is registered before the auth guard (src/platform/http/auth.ts), which therefore does not ask
 * it for an access-policy operation: it runs no handler of Assent's.
 */
import cors from '@fastify/cors';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

/** The origins of registered app redirect URIs (the federation domain's `WebOrigins`). */
export interface RegisteredOrigins {
  /**
   * Whether `origin` is one of them; never throws.
   * @param log - where a failure to read them is reported.
   */
  has(origin: string, log: FastifyBaseLogger): Promise<boolean>;
}

/** Methods the API uses. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Request headers the SDKs and dashboards send (docs/api.md "Authorization header"; conditional image reads). */
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match'];
/** Answer headers a script may read: throttling, request correlation, caching, auth challenges, created resources. */
const EXPOSED_HEADERS = ['Retry-After', 'X-Request-Id', 'ETag', 'WWW-Authenticate', 'Location'];
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Registers `@fastify/cors` with a checked origin function. Call before `installAuthGuard`.
 * @param app - the root instance.
 * @param web - the origins of the app redirect URIs.
 * @param configured - `ASSENT_CORS_ORIGINS`, exact serialised origins (validated by `loadConfig`).
 */
export async function installCors(
  app: FastifyInstance,
  web: RegisteredOrigins,
  configured: readonly string[],
): Promise<void> {
  const fixed = new Set(configured);
  await app.register(cors, {
    // Threat: a page of any origin reading answers with the user's token; only checked origins are echoed, `null`
    // (sandboxed frames, file:) never.
    origin: async (origin: string | undefined) =>
      Boolean(origin && origin !== 'null' && (fixed.has(origin) || (await web.has(origin, app.log)))),
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: PREFLIGHT_MAX_AGE,
    // An OPTIONS of an allowed origin without Access-Control-Request-Method gets the same 204, not a text/plain 400.
    strictPreflight: false,
  });
}
