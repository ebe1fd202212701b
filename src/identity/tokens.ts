/**
 * Minting and verifying Assent's three JWT kinds. Each kind has its own `typ` header, pinned on
 * verification, so one kind can never be replayed as another (RFC 8725 §3.11).
 *
 * - access token: `typ: at+jwt` (RFC 9068), claims iss, aud, sub, iat, exp, jti, client_id, sid;
 * - refresh token: `typ: refresh+jwt`, same claims; `jti` is stored hashed in its family;
 * - API key: `typ: apikey+jwt`, claims iss, aud, sub, iat, exp, jti (the api_keys row).
 */
import { createHash, randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { ALG, type KeyRing } from './keys.js';

/** The three token kinds, by their `typ` header. */
export const TokenType = { access: 'at+jwt', refresh: 'refresh+jwt', apiKey: 'apikey+jwt' } as const;
/** One of the `TokenType` values. */
export type TokenType = (typeof TokenType)[keyof typeof TokenType];

/** Verified claims of an Assent token. */
export interface TokenClaims extends JWTPayload {
  sub: string;
  jti: string;
  exp: number;
  /** OAuth client the session belongs to (RFC 9068 §2.2); absent on API keys. */
  client_id?: string;
  /** Token family (session) ID; absent on API keys. */
  sid?: string;
}

/** Thrown when a token is not a valid, current Assent token of the expected kind. */
export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

/**
 * SHA-256 of a token ID, as stored; a stolen database does not yield usable `jti`s.
 * @param jti - the `jti` claim.
 */
export function hashJti(jti: string): Buffer {
  return createHash('sha256').update(jti).digest();
}

/** Signs and verifies tokens for one issuer. */
export class Tokens {
  /**
   * @param keys - the signing-key ring.
   * @param issuer - `iss` and `aud` of every token: the public URL.
   */
  constructor(
    private readonly keys: KeyRing,
    private readonly issuer: string,
  ) {}

  /**
   * Signs a token.
   * @param type - the token kind.
   * @param claims - `sub`, optional `client_id`/`sid`, and `jti` (a fresh UUID when absent).
   * @param ttl - lifetime (seconds).
   * @returns the compact JWT and its `jti` and `exp` (seconds since the epoch).
   */
  async sign(type: TokenType, claims: { sub: string; client_id?: string; sid?: string; jti?: string }, ttl: number) {
    const { kid, privateKey } = await this.keys.signingKey();
    const jti = claims.jti ?? randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + ttl;
    const extra: Record<string, string> = {};
    if (claims.client_id) extra.client_id = claims.client_id;
    if (claims.sid) extra.sid = claims.sid;
    const token = await new SignJWT(extra)
      .setProtectedHeader({ alg: ALG, kid, typ: type })
      .setIssuer(this.issuer)
      .setAudience(this.issuer)
      .setSubject(claims.sub)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(jti)
      .sign(privateKey);
    return { token, jti, exp };
  }

  /**
   * Verifies a token of the given kind: signature by a published key chosen by `kid`, `alg`
   * pinned to ES256 (refuses `none` and HS256-with-the-public-key), `typ`, `iss`, `aud`, `exp`.
   *
   * @param token - compact JWT.
   * @param type - the expected kind.
   * @throws {InvalidTokenError} on any failure; the reason is not disclosed to clients.
   */
  async verify(token: string, type: TokenType): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const key = header.kid ? await this.keys.verificationKey(header.kid) : undefined;
          if (!key) throw new InvalidTokenError('unknown kid');
          return key;
        },
        { algorithms: [ALG], typ: type, issuer: this.issuer, audience: this.issuer, requiredClaims: ['sub', 'jti', 'exp', 'iat'] },
      );
      return payload as TokenClaims;
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      if (err instanceof joseErrors.JOSEError) throw new InvalidTokenError(err.code);
      throw new InvalidTokenError('malformed token');
    }
  }
}
