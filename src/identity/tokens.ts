/**
 * Minting and verifying Assent's three JWT kinds. Each kind has its own `typ` header, pinned on
 * verification, so one kind can never be replayed as another (RFC 8725 §3.11).
 *
 * - access token: `typ: at+jwt` (RFC 9068), claims iss, aud, sub, iat, exp, jti, client_id, sid;
 * - refresh token: `typ: refresh+jwt`, same claims; `jti` is stored hashed in its family;
 * - API key: `typ: apikey+jwt`, claims iss, aud, sub, iat, exp, jti (the api_keys row).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createDecoder, createSigner, createVerifier, TokenError } from 'fast-jwt';
import { ALG, type KeyRing } from './keys.js';

/** The three token kinds, by their `typ` header. */
export const TokenType = { access: 'at+jwt', refresh: 'refresh+jwt', apiKey: 'apikey+jwt' } as const;
/** One of the `TokenType` values. */
export type TokenType = (typeof TokenType)[keyof typeof TokenType];

/** Verified claims of an Assent token. */
export interface TokenClaims {
  iss: string;
  aud: string;
  iat: number;
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

/**
 * How many verified tokens of each kind are remembered (count; LRU), so that a token presented
 * again skips the ECDSA verification. Only successes are kept, never beyond the token's `exp`, and
 * revocation is checked on every request regardless (see `authenticate`). Refresh tokens are
 * single-use, so they are not cached.
 */
const VERIFIED_CACHE: Record<TokenType, number> = { [TokenType.access]: 10_000, [TokenType.apiKey]: 2_000, [TokenType.refresh]: 0 };

type SignFn = (payload: Record<string, unknown>) => string;
type VerifyFn = (token: string) => TokenClaims;

/** Reads a compact JWS's header without verifying it (RFC 7515 §7.1); throws on junk. */
const decodeComplete = createDecoder({ complete: true, checkTyp: undefined }) as (token: string) => { header: { kid?: unknown; typ?: unknown } };

/**
 * The protected header of a compact JWT, unverified: only for choosing how to verify it.
 * @param token - compact JWT.
 * @returns `kid` and `typ` when they are strings.
 * @throws {InvalidTokenError} when the token is not a well-formed JWS.
 */
export function unverifiedHeader(token: string): { kid?: string; typ?: string } {
  try {
    const { header } = decodeComplete(token);
    return { kid: typeof header.kid === 'string' ? header.kid : undefined, typ: typeof header.typ === 'string' ? header.typ : undefined };
  } catch {
    throw new InvalidTokenError('malformed token');
  }
}

/**
 * Signs and verifies tokens for one issuer, with fast-jwt (synchronous node:crypto ECDSA: about a
 * third of the CPU of a WebCrypto signature here). Signers and verifiers are built once per
 * (`kid`, kind) and dropped when the key leaves the ring.
 */
export class Tokens {
  private signers = new Map<string, SignFn>();
  private verifiers = new Map<string, { pem: string; verify: VerifyFn }>();

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
    const { kid, privatePem } = await this.keys.signingKey();
    const jti = claims.jti ?? randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + ttl;
    const payload: Record<string, unknown> = { sub: claims.sub, jti, iat, exp };
    if (claims.client_id) payload.client_id = claims.client_id;
    if (claims.sid) payload.sid = claims.sid;
    return { token: this.signerFor(kid, privatePem, type)(payload), jti, exp };
  }

  /**
   * Verifies a token of the given kind: signature by a published key chosen by `kid`, `alg`
   * pinned to ES256 (refuses `none` and HS256-with-the-public-key, RFC 8725 §3.1), `typ`, `iss`,
   * `aud`, `exp`, and the presence of `sub`, `jti`, `exp`, `iat`.
   *
   * @param token - compact JWT.
   * @param type - the expected kind.
   * @throws {InvalidTokenError} on any failure; the reason is not disclosed to clients.
   */
  async verify(token: string, type: TokenType): Promise<TokenClaims> {
    const { kid } = unverifiedHeader(token);
    const pem = kid ? await this.keys.verificationKey(kid) : undefined;
    if (!kid || !pem) throw new InvalidTokenError('unknown kid');
    try {
      return this.verifierFor(kid, pem, type)(token);
    } catch (err) {
      throw new InvalidTokenError(err instanceof TokenError ? err.code : 'malformed token');
    }
  }

  private signerFor(kid: string, privatePem: string, type: TokenType): SignFn {
    const id = `${kid} ${type}`;
    let signer = this.signers.get(id);
    if (!signer) {
      if (this.signers.size > 32) this.signers.clear(); // old kids after rotations
      signer = createSigner({ key: privatePem, algorithm: ALG, kid, header: { alg: ALG, typ: type }, iss: this.issuer, aud: this.issuer }) as SignFn;
      this.signers.set(id, signer);
    }
    return signer;
  }

  private verifierFor(kid: string, pem: string, type: TokenType): VerifyFn {
    const id = `${kid} ${type}`;
    const known = this.verifiers.get(id);
    if (known && known.pem === pem) return known.verify;
    if (this.verifiers.size > 32) this.verifiers.clear(); // old kids after rotations
    const verify = createVerifier({
      key: pem,
      algorithms: [ALG],
      checkTyp: type,
      allowedIss: this.issuer,
      allowedAud: this.issuer,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      cache: VERIFIED_CACHE[type] > 0 ? VERIFIED_CACHE[type] : false,
    }) as VerifyFn;
    this.verifiers.set(id, { pem, verify });
    return verify;
  }
}
