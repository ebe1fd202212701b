/**
 * The auth guard: resolves the caller from the Authorization header and enforces the access
 * policy of `policy.ts` before any handler runs. What a credential is and which roles a user
 * holds are the identity and orgs domains' rules: the guard gets them injected (`GuardServices`).
 * Accepted headers (docs/api.md "Authentication"; docs/api.md "Authorization header"): `Bearer <access token>`,
 * `Bearer <API key>`, `ApiKey <API key>`.
 */
import type { FastifyInstance } from 'fastify';
import { AccessDenied, NotFound, Unauthenticated } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { isId } from '../util/ids.js';
import { ACCESS_POLICY, type OperationConfig } from './policy.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth guard on routes that require a credential. */
    principal: Principal | null;
  }
}

/** What the auth guard asks of the domains. */
export interface GuardServices {
  /**
   * Resolves the caller from the Authorization header (docs/api.md "Authentication").
   * @throws {Unauthenticated} when the header is absent, malformed, or the credential is not live.
   */
  authenticate(authorization: string | undefined): Promise<Principal>;
  /** The user's RoleIDs in the organisation (empty when none); null when the organisation does not exist. */
  rolesIn(orgId: string, userId: string): Promise<readonly number[] | null>;
}

/**
 * Checks that a user holds one of `allowed` in an organisation: the `orgRoles` rows of the access policy, for the
 * guard and for a service called without it (ASVS 5.0 V8.2.1, function-level access control).
 * @param rolesIn - the roles lookup (null when the organisation does not exist).
 * @param orgId - the organisation, as sent (any string).
 * @throws {NotFound} when the organisation does not exist (or the ID is malformed).
 * @throws {AccessDenied} when the user holds none of the roles there.
 */
export async function requireOrgRole(
  rolesIn: GuardServices['rolesIn'],
  orgId: string | undefined,
  userId: string,
  allowed: readonly number[],
): Promise<void> {
  if (!isId(orgId)) throw new NotFound('Organisation not found');
  const held = await rolesIn(orgId, userId);
  if (held === null) throw new NotFound('Organisation not found');
  // Deny by default: a signed-in user of another organisation, or an individual, has no say here.
  if (!held.some((r) => allowed.includes(r)))
    throw new AccessDenied('Your roles in this organisation do not allow this operation');
}

/**
 * Installs the guard: refuses at start-up any route without `config.operation`, and as soon as a
 * request is routed (`onRequest`, before its body is read or validated) authenticates the caller as
 * the operation's policy row requires: a caller without credentials gets 401 whatever the body.
 * @param services - the credential check and the roles lookup, built by the composition root.
 */
export function installAuthGuard(app: FastifyInstance, services: GuardServices): void {
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => {
    const operation = (route.config as OperationConfig | undefined)?.operation;
    if (!operation || !(operation in ACCESS_POLICY)) {
      throw new Error(`route ${route.method} ${route.url} has no access-policy operation`);
    }
  });
  // Threat: unauthenticated callers making the server read, parse and validate bodies, and
  // learning a route's body schema from its 400s; they are refused before the body is read.
  app.addHook('onRequest', async (request) => {
    const operation = (request.routeOptions.config as OperationConfig).operation;
    if (!operation) return; // 404 handler and framework routes
    const rule = ACCESS_POLICY[operation];
    // `web`: the web guard (src/web/shared/guard.ts) checks the session cookie and the CSRF token instead.
    if (rule.credential === 'none' || rule.credential === 'web') return;
    const principal = await services.authenticate(request.headers.authorization);
    // Ending a session needs the session itself: a long-lived API key must not stand in for it.
    if (rule.credential === 'session' && principal.via !== 'access')
      throw new Unauthenticated('This operation needs an access token, not an API key');
    request.principal = principal;
    if ('orgRoles' in rule) {
      const orgId = (request.params as { organizationID?: string }).organizationID;
      await requireOrgRole(services.rolesIn, orgId, principal.userId, rule.orgRoles);
    }
  });
}
