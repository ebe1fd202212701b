/**
 * The auth guard: resolves the caller from the Authorization header and enforces the access
 * policy of `policy.ts` before any handler runs.
 *
 * Accepted headers (SPEC 5; docs/api.md "Authorization header"): `Bearer <access token>`,
 * `Bearer <API key>`, `ApiKey <API key>`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { LivenessCache } from '../identity/liveness.js';
import { InvalidTokenError, TokenType, type Tokens, unverifiedHeader } from '../identity/tokens.js';
import type { RolesCache } from '../orgs/roles-cache.js';
import { isId } from '../util/ids.js';
import { Forbidden, NotFound, Unauthorized } from './errors.js';
import { ACCESS_POLICY, type OperationConfig } from './policy.js';

/** The authenticated caller. */
export interface Principal {
  /** The user's ID (`sub`). */
  userId: string;
  /** Which credential was presented. */
  via: 'access' | 'apiKey';
  /** Token family of an access token. */
  familyId?: string;
  /** `jti` of an API key (the api_keys row). */
  apiKeyId?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, set by the auth guard on routes that require a credential. */
    principal: Principal | null;
  }
}

function credentialOf(header: string | undefined): { scheme: 'bearer' | 'apikey'; token: string } | null {
  if (!header) return null;
  const match = /^(Bearer|ApiKey)[ ]+([A-Za-z0-9_.~+/=-]+)$/i.exec(header.trim());
  if (!match?.[1] || !match[2]) return null;
  return { scheme: match[1].toLowerCase() === 'apikey' ? 'apikey' : 'bearer', token: match[2] };
}

/**
 * Authenticates a request: verifies the JWT (see `Tokens.verify`) and then checks that its session
 * or API key has not been revoked: one primary-key lookup, or the cache that every revocation
 * empties at once (`LivenessCache`; logout must take effect at once, docs/decisions/0001-logout-takes-effect-at-once.md).
 *
 * @throws {Unauthorized} when the header is absent, malformed, or the credential is not live.
 */
export async function authenticate(request: FastifyRequest, liveness: LivenessCache, tokens: Tokens): Promise<Principal> {
  const credential = credentialOf(request.headers.authorization);
  if (!credential) throw new Unauthorized('Missing or malformed Authorization header');
  let type: TokenType;
  let header: ReturnType<typeof unverifiedHeader>;
  try {
    // The header only picks which verification (and key) to run; `typ` is then pinned and checked by `verify`.
    header = unverifiedHeader(credential.token);
    type = credential.scheme === 'apikey' || header.typ === TokenType.apiKey ? TokenType.apiKey : TokenType.access;
  } catch {
    throw new Unauthorized('Invalid token');
  }
  try {
    const claims = await tokens.verify(credential.token, type, header);
    if (type === TokenType.apiKey) {
      if (!(await liveness.isApiKeyLive(claims.jti, claims.sub))) throw new Unauthorized('API key revoked');
      return { userId: claims.sub, via: 'apiKey', apiKeyId: claims.jti };
    }
    if (!claims.sid || !(await liveness.isFamilyLive(claims.sid, claims.sub))) throw new Unauthorized('Session ended');
    return { userId: claims.sub, via: 'access', familyId: claims.sid };
  } catch (err) {
    if (err instanceof InvalidTokenError) throw new Unauthorized('Invalid token');
    throw err;
  }
}

/**
 * Checks that the caller holds one of `allowed` in the path's organisation.
 * @throws {NotFound} when the organisation does not exist (or the ID is malformed).
 * @throws {Forbidden} when the caller holds none of the roles there.
 */
async function assertOrgRole(roles: RolesCache, request: FastifyRequest, principal: Principal, allowed: readonly number[]): Promise<void> {
  const orgId = (request.params as { organizationID?: string }).organizationID;
  if (!isId(orgId)) throw new NotFound('Organisation not found');
  const held = await roles.rolesIn(orgId, principal.userId);
  if (held === null) throw new NotFound('Organisation not found');
  // Deny by default: a signed-in user of another organisation, or an individual, has no say here.
  if (!held.some((r) => allowed.includes(r))) throw new Forbidden('Your roles in this organisation do not allow this operation');
}

/**
 * Installs the guard: refuses at start-up any route without `config.operation`, and as soon as a
 * request is routed (`onRequest`, before its body is read or validated) authenticates the caller as
 * the operation's policy row requires: a caller without credentials gets 401 whatever the body.
 */
export function installAuthGuard(app: FastifyInstance, roles: RolesCache, liveness: LivenessCache, tokens: Tokens): void {
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
    if (rule.credential === 'none') return;
    const principal = await authenticate(request, liveness, tokens);
    // Ending a session needs the session itself: a long-lived API key must not stand in for it.
    if (rule.credential === 'session' && principal.via !== 'access') throw new Unauthorized('This operation needs an access token, not an API key');
    request.principal = principal;
    if ('orgRoles' in rule) await assertOrgRole(roles, request, principal, rule.orgRoles);
  });
}
