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
import { csrfMatches, type WebSession, type WebSessions } from '../../identity/index.js';
import { AccessDenied, NotFound, Unauthenticated } from '../../platform/core/errors.js';
import { ACCESS_POLICY, type Operation } from '../../platform/http/policy.js';
import { isId } from '../../platform/util/ids.js';
import type { FormRefusal } from './form-state.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The browser's web session, set by the web guard on web routes. */
    webSession: WebSession | null;
    /** The cookie value the session was found by. */
    webCookie: string | undefined;
    /** The signed-in user's roles in the path's organisation (console pages; null elsewhere). */
    webRoles: readonly number[];
    /**
     * On console pages: an organisation where the user is staff requires a second factor, and they have none
     * (docs/security.md "Staff policy").
     */
    webFactorMissing: boolean;
  }
}

/** How a web route is reached: signed in, or not (the sign-in page, the assets). */
export interface WebRouteConfig {
  web?: 'signed-in' | 'public';
  /** The sign-in page a signed-out browser is sent to (GET pages). */
  signIn?: string;
  /**
   * The route reads a `multipart/form-data` body itself and checks its `_csrf` field with
   * `assertMultipartCsrf` before reading any file; the guard then checks only an `x-csrf-token` header.
   */
  csrfInMultipart?: boolean;
  /**
   * The JSON API operation whose access-policy row decides who may use this page (the console):
   * its `orgRoles` in the path's `organizationID`, exactly as the API's guard checks them.
   */
  api?: Operation;
  /** A form's route: how it answers a refused form (the page again, what was typed kept; `form-state.tsx`). */
  refused?: FormRefusal;
  /** A console page reachable without the second factor a staff policy requires (the Security page, sign-out). */
  factorExempt?: boolean;
}

/** Whether the user is staff of an organisation that requires a second factor and has none (docs/security.md). */
export type FactorMissing = (userId: string) => Promise<boolean>;

/** Answers a user's roles in an organisation (null: no such organisation), as the API's guard asks. */
export type RolesIn = (orgId: string, userId: string) => Promise<readonly number[] | null>;

/**
 * The name of the session cookie (`base` for another of the web front ends' cookies). Under https the `__Host-` prefix binds it to this host, path `/`,
 * Secure (RFC 6265bis §4.1.3.2): a sibling subdomain cannot set or shadow it.
 */
export function cookieName(publicUrl: string, base = 'assent-web'): string {
  return publicUrl.startsWith('https:') ? `__Host-${base}` : base;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The console's sign-in page: a route that names it is a console page. */
const CONSOLE_SIGN_IN = '/console/sign-in';
/** Where the staff policy sends a console page's GET until a second factor is set up. */
const CONSOLE_SECURITY = '/console/security';

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

/** Whether the route checks the token of this multipart body itself (no header sent; see `csrfInMultipart`). */
function deferredToForm(request: FastifyRequest, config: WebRouteConfig): boolean {
  return (
    config.csrfInMultipart === true &&
    request.headers['x-csrf-token'] === undefined &&
    /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '')
  );
}

/**
 * The check of a `csrfInMultipart` route's form, called with its `_csrf` field before any file is
 * read: when the guard left the token to the route (`deferredToForm`), the field must match; when
 * the guard checked the `x-csrf-token` header already, there is nothing more to check.
 * @param field - the form's `_csrf` field, if any.
 * @throws {AccessDenied} when the token the guard left to it does not match.
 */
export function assertMultipartCsrf(request: FastifyRequest, field: unknown): void {
  if (deferredToForm(request, request.routeOptions.config as WebRouteConfig)) assertFormCsrf(request, field);
}

/**
 * Checks a state-changing request's synchronizer token against its session's (constant time).
 * @param token - as sent.
 * @throws {AccessDenied} when it does not match (or there is no session).
 */
function assertFormCsrf(request: FastifyRequest, token: unknown): void {
  // Threat: cross-site request forgery of a signed-in browser's change (OWASP synchronizer token pattern).
  if (!request.webSession || !csrfMatches(request.webSession, token))
    throw new AccessDenied('This form has expired: reload the page and try again');
}

/**
 * The API's organisation-role rule for a console page (src/platform/http/auth.ts `assertOrgRole`, the same
 * policy row): deny by default.
 * @returns the user's roles in the organisation.
 * @throws {NotFound} for an unknown organisation; {AccessDenied} when no allowed role is held.
 */
async function assertApiRoles(rolesIn: RolesIn, request: FastifyRequest, api: Operation): Promise<readonly number[]> {
  const orgId = (request.params as { organizationID?: string }).organizationID;
  if (!isId(orgId)) throw new NotFound('Organisation not found');
  const held = await rolesIn(orgId, request.webSession!.userId);
  if (held === null) throw new NotFound('Organisation not found');
  const rule = ACCESS_POLICY[api];
  const allowed: readonly number[] = 'orgRoles' in rule ? rule.orgRoles : [];
  // Threat: an individual's or another organisation's session using the console (ASVS 5.0 V8.2.2).
  if (!held.some((r) => allowed.includes(r)))
    throw new AccessDenied('Your roles in this organisation do not allow this');
  return held;
}

/**
 * Installs the guard on the web plugin's instance.
 * @param sessions - the web sessions.
 * @param publicUrl - `ASSENT_PUBLIC_URL`: its origin is the only one allowed to post.
 * @param rolesIn - the roles lookup of the API's guard (the roles cache).
 */
export function installWebGuard(
  app: FastifyInstance,
  sessions: WebSessions,
  publicUrl: string,
  rolesIn: RolesIn,
  factorMissing: FactorMissing,
): void {
  const origin = new URL(publicUrl).origin;
  const name = cookieName(publicUrl);
  app.decorateRequest('webSession', null);
  app.decorateRequest('webCookie', undefined);
  app.decorateRequest('webRoles', null as unknown as readonly number[]);
  app.decorateRequest('webFactorMissing', false);
  // Before the schema's validation, not after: a refused form is answered with its page again
  // (`refused`), which must not show an organisation's data to a browser the guard would turn away.
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    const config = request.routeOptions.config as WebRouteConfig;
    if (config.web === undefined) return;
    const unsafe = !SAFE.has(request.method);
    // Threat: cross-site request forgery, including login CSRF on the sign-in form.
    if (unsafe && !sameOrigin(request, origin)) throw new AccessDenied('This form must be sent from this site');
    request.webCookie = request.cookies[name];
    request.webSession = await sessions.resolve(request.webCookie);
    if (config.web === 'public') return;
    if (!request.webSession) {
      if (request.method === 'GET' && config.signIn) {
        const next = encodeURIComponent(request.url);
        return reply.code(303).header('Location', `${config.signIn}?next=${next}`).send();
      }
      throw new Unauthenticated('Your session has ended: sign in again');
    }
    // Threat: CSRF from a page that got around SameSite (a sibling site); the synchronizer token decides.
    if (unsafe && !deferredToForm(request, config)) assertFormCsrf(request, sentToken(request));
    if (config.signIn === CONSOLE_SIGN_IN) {
      request.webFactorMissing = await factorMissing(request.webSession.userId);
      // Threat: staff administering with a password alone where their organisation requires a second factor.
      if (request.webFactorMissing && !config.factorExempt) {
        if (request.method === 'GET') return reply.code(303).header('Location', CONSOLE_SECURITY).send();
        throw new AccessDenied('Set up a second factor first: your organisation requires one (Security page)');
      }
    }
    if (config.api) request.webRoles = await assertApiRoles(rolesIn, request, config.api);
  });
}
