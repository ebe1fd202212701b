/**
 * The web front ends' guard (docs/web.md "Sessions" and "CSRF"), a hook of the web plugin only:
 * - resolves the browser's session from its cookie (`WebSessions.resolve`);
 * - a page that needs a session sends a signed-out browser to the sign-in page (GET) or answers
 *   401 (anything else);
 * - every state-changing request must come from this origin (`Origin`, else `Sec-Fetch-Site`) and,
 *   once signed in, carry the session's CSRF token (form field `_csrf` or header `x-csrf-token`).
 */
import type {} from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Forbidden, Unauthorized } from '../http/errors.js';
import { csrfMatches, type WebSession, type WebSessions } from '../identity/web-sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser's web session, set by the web guard on web routes. */
    webSession: WebSession | null;
    /** The cookie value the session was found by. */
    webCookie: string | undefined;
  }
}

/** How a web route is reached: signed in, or not (the sign-in page, the assets). */
export interface WebRouteConfig {
  web?: 'signed-in' | 'public';
  /** The sign-in page a signed-out browser is sent to (GET pages). */
  signIn?: string;
}

/**
 * The session cookie's name. Under https the `__Host-` prefix binds it to this host, path `/`,
 * Secure (RFC 6265bis §4.1.3.2): a sibling subdomain cannot set or shadow it.
 */
export function cookieName(publicUrl: string): string {
  return publicUrl.startsWith('https:') ? '__Host-assent-web' : 'assent-web';
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a state-changing request comes from this origin (OWASP CSRF cheat sheet, "Verifying origin"). */
function sameOrigin(request: FastifyRequest, origin: string): boolean {
  const sent = request.headers.origin;
  if (typeof sent === 'string') return sent === origin;
  // No Origin (older browsers on same-origin posts): Fetch Metadata, when sent, must not say cross-site.
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

function sentToken(request: FastifyRequest): unknown {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  const body = request.body as Record<string, unknown> | undefined;
  return body && typeof body === 'object' ? body._csrf : undefined;
}

/**
 * Installs the guard on the web plugin's instance.
 * @param sessions - the web sessions.
 * @param publicUrl - `ASSENT_PUBLIC_URL`: its origin is the only one allowed to post.
 */
export function installWebGuard(app: FastifyInstance, sessions: WebSessions, publicUrl: string): void {
  const origin = new URL(publicUrl).origin;
  const name = cookieName(publicUrl);
  app.decorateRequest('webSession', null);
  app.decorateRequest('webCookie', undefined);
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions.config as WebRouteConfig;
    if (config.web === undefined) return;
    const unsafe = !SAFE.has(request.method);
    // Threat: cross-site request forgery, including login CSRF on the sign-in form.
    if (unsafe && !sameOrigin(request, origin)) throw new Forbidden('This form must be sent from this site');
    request.webCookie = request.cookies[name];
    request.webSession = await sessions.resolve(request.webCookie);
    if (config.web === 'public') return;
    if (!request.webSession) {
      if (request.method === 'GET' && config.signIn) {
        const next = encodeURIComponent(request.url);
        return reply.code(303).header('Location', `${config.signIn}?next=${next}`).send();
      }
      throw new Unauthorized('Your session has ended: sign in again');
    }
    // Threat: CSRF from a page that got around SameSite (a sibling site); the synchronizer token decides.
    if (unsafe && !csrfMatches(request.webSession, sentToken(request)))
      throw new Forbidden('This form has expired: reload the page and try again');
  });
}
