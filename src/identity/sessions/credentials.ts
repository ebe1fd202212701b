/**
 * The credentials the auth guard (src/platform/http/auth.ts) accepts: resolves the caller from the
 * Authorization header.
 *
 * Accepted headers (docs/api.md "Authentication"; docs/api.md "Authorization header"): `Bearer <access token>`,
 * `Bearer <API key>`, `ApiKey <API key>`.
 */

import { Unauthenticated } from '../../platform/core/errors.js';
import type { Principal } from '../../platform/core/principal.js';
import { InvalidTokenError, type Tokens, TokenType, unverifiedHeader } from '../tokens/tokens.js';
import type { LivenessCache } from './liveness.js';

function credentialOf(header: string | undefined): { scheme: 'bearer' | 'apikey'; token: string } | null {
  if (!header) return null;
  const match = /^(Bearer|ApiKey)[ ]+([A-Za-z0-9_.~+/=-]+)$/i.exec(header.trim());
  if (!match?.[1] || !match[2]) return null;
  return { scheme: match[1].toLowerCase() === 'apikey' ? 'apikey' : 'bearer', token: match[2] };
}

/**
 * Authenticates a request: verifies the JWT (see `Tokens.verify`) and then checks that its session
 * or API key has not been revoked: one primary-key lookup, or the cache that every revocation
 * empties at once (`LivenessCache`; logout must take effect at once,
 * docs/decisions/0001-logout-takes-effect-at-once.md).
 * @param authorization - the request's Authorization header.
 * @throws {Unauthenticated} when the header is absent, malformed, or the credential is not live.
 */
export async function authenticate(
  authorization: string | undefined,
  liveness: LivenessCache,
  tokens: Tokens,
): Promise<Principal> {
  const credential = credentialOf(authorization);
  if (!credential) throw new Unauthenticated('Missing or malformed Authorization header');
  let type: TokenType;
  let header: ReturnType<typeof unverifiedHeader>;
  try {
    // The header only picks which verification (and key) to run; `typ` is then pinned and checked by `verify`.
    header = unverifiedHeader(credential.token);
    type = credential.scheme === 'apikey' || header.typ === TokenType.apiKey ? TokenType.apiKey : TokenType.access;
  } catch {
    throw new Unauthenticated('Invalid token');
  }
  try {
    const claims = await tokens.verify(credential.token, type, header);
    if (type === TokenType.apiKey) {
      if (!(await liveness.isApiKeyLive(claims.jti, claims.sub))) throw new Unauthenticated('API key revoked');
      return { userId: claims.sub, via: 'apiKey', apiKeyId: claims.jti };
    }
    if (!claims.sid || !(await liveness.isFamilyLive(claims.sid, claims.sub)))
      throw new Unauthenticated('Session ended');
    return { userId: claims.sub, via: 'access', familyId: claims.sid };
  } catch (err) {
    if (err instanceof InvalidTokenError) throw new Unauthenticated('Invalid token');
    throw err;
  }
}
