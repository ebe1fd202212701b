/**
 * Minting and verifying Assent's three JWT kinds. Each kind has its own `typ` header, pinned on
 * verification, so one kind can never be replayed as another (RFC 8725 §3.11).
 *
 * - access token: `typ: at+jwt` (RFC 9068), claims iss, aud, sub, iat, exp, jti, client_id, sid;
 * - refresh token: `typ: refresh+jwt`, same claims; `jti` is stored hashed in its family;
 * - API key: `typ: apikey+jwt`, claims iss, aud, sub, iat, exp, jti (the api_keys row).
 *
 * Access tokens and API keys are signed ES256 with a published key (`kid`), because resource
 * servers may check them with the JWKS. Refresh tokens are read by Assent alone (RFC 6749 §1.5:
 * they are opaque to everyone else), so they carry an HMAC-SHA256 (`alg: HS256`, no `kid`) under a
 * key derived from the master key, as Keycloak's HS512 refresh tokens do: about a tenth of the CPU
 * of an ES256 signature and verification, on the hottest write path.
 */
import { randomUUID } from 'node:crypto';
import { createDecoder, createSigner, createVerifier, TokenError } from 'fast-jwt';
import { sha256 } from '../../platform/crypto/digest.js';
import { ALG, type KeyRing } from './keys.js';
import { Es256Signer } from './signer.js';

/** The three token kinds, by their `typ` header. */
export const TokenType = { access: 'at+jwt', refresh: 'refresh+jwt', apiKey: 'apikey+jwt' } as const;
/** One of the `TokenType` values. */
export type TokenType = (typeof TokenType)[keyof typeof TokenType];

/** The HKDF purpose of the refresh-token MAC key (see `MasterKey.derivedKey`). */
export const REFRESH_MAC_PURPOSE = 'refresh-token-mac';
/** The refresh tokens' algorithm: a MAC, since only Assent verifies them. */
const REFRESH_ALG = 'HS256';

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
  return sha256(jti);
}

/**
 * How many verified tokens of each kind are remembered (count; LRU), so that a token presented
 * again skips the ECDSA verification. Only successes are kept, never beyond the token's `exp`, and
 * revocation is checked on every request regardless (see `authenticate`). Refresh tokens are
 * single-use, so they are not cached.
 */
const VERIFIED_CACHE: Record<Exclude<TokenType, 'refresh+jwt'>, number> = {
  [TokenType.access]: 10_000,
  [TokenType.apiKey]: 2_000,
};

type SignFn = (payload: Record<string, unknown>) => string;
type VerifyFn = (token: string) => TokenClaims;

/** Reads a compact JWS's header without verifying it (RFC 7515 §7.1); throws on junk. */
const decodeComplete = createDecoder({ complete: true, checkTyp: undefined }) as (token: string) => {
  header: { kid?: unknown; typ?: unknown };
};

/**
 * The protected header of a compact JWT, unverified: only for choosing how to verify it.
 * @param token - compact JWT.
 * @returns `kid` and `typ` when they are strings.
 * @throws {InvalidTokenError} when the token is not a well-formed JWS.
 */
export function unverifiedHeader(token: string): { kid?: string; typ?: string } {
  try {
    const { header } = decodeComplete(token);
    return {
      kid: typeof header.kid === 'string' ? header.kid : undefined,
      typ: typeof header.typ === 'string' ? header.typ : undefined,
    };
  } catch {
    throw new InvalidTokenError('malformed token');
  }
}

/** Runs a verifier, turning any failure into `InvalidTokenError` with fast-jwt's code. */
function checked(verify: VerifyFn, token: string): TokenClaims {
  try {
    return verify(token);
  } catch (err) {
    throw new InvalidTokenError(err instanceof TokenError ? err.code : 'malformed token');
  }
}

/**
 * Signs and verifies tokens for one issuer, with fast-jwt (synchronous node:crypto ECDSA: about a
 * third of the CPU of a WebCrypto signature here). Signers (`Es256Signer`, shared with the signed
 * documents) and verifiers are built once per (`kid`, kind) and dropped when the key leaves the ring.
 */
export class Tokens {
  private readonly es256: Es256Signer;
  private verifiers = new Map<string, { pem: string; verify: VerifyFn }>();
  private readonly refreshSigner: SignFn;
  private readonly refreshVerifier: VerifyFn;

  /**
   * @param keys - the signing-key ring.
   * @param issuer - `iss` and `aud` of every token: the public URL.
   * @param refreshMacKey - the refresh tokens' HMAC key (32 bytes; `MasterKey.derivedKey(REFRESH_MAC_PURPOSE)`).
   */
  constructor(
    private readonly keys: KeyRing,
    private readonly issuer: string,
    refreshMacKey: Buffer,
  ) {
    const common = { iss: issuer, aud: issuer };
    this.es256 = new Es256Signer(keys, common);
    this.refreshSigner = createSigner({
      key: refreshMacKey,
      algorithm: REFRESH_ALG,
      header: { alg: REFRESH_ALG, typ: TokenType.refresh },
      ...common,
    }) as SignFn;
    // Pinned to HS256 under the secret MAC key: an ES256 token, `none`, or a MAC made with the public
    // key (algorithm confusion, RFC 8725 §3.1) cannot pass as a refresh token.
    this.refreshVerifier = createVerifier({
      ...this.claimChecks(TokenType.refresh),
      key: refreshMacKey,
      algorithms: [REFRESH_ALG],
      cache: false,
    }) as VerifyFn;
  }

  /**
   * Signs a token.
   * @param type - the token kind.
   * @param claims - `sub`, optional `client_id`/`sid`, and `jti` (a fresh UUID when absent).
   * @param ttl - lifetime (seconds).
   * @returns the compact JWT and its `jti` and `exp` (seconds since the epoch).
   */
  async sign(type: TokenType, claims: { sub: string; client_id?: string; sid?: string; jti?: string }, ttl: number) {
    const jti = claims.jti ?? randomUUID();
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + ttl;
    const payload: Record<string, unknown> = { sub: claims.sub, jti, iat, exp };
    if (claims.client_id) payload.client_id = claims.client_id;
    if (claims.sid) payload.sid = claims.sid;
    if (type === TokenType.refresh) return { token: this.refreshSigner(payload), jti, exp };
    return { token: await this.es256.sign(type, payload), jti, exp };
  }

  /**
   * Verifies a token of the given kind: for access tokens and API keys, the signature by a
   * published key chosen by `kid` with `alg` pinned to ES256; for refresh tokens, the HS256 MAC
   * under the refresh key. Either way `none` and HS256-with-the-public-key are refused (RFC 8725
   * §3.1), and `typ`, `iss`, `aud`, `exp` and the presence of `sub`, `jti`, `exp`, `iat` are checked.
   *
   * @param token - compact JWT.
   * @param type - the expected kind.
   * @param header - the token's `unverifiedHeader`, when the caller already decoded it (it only
   *   picks the key; the verifier checks everything again).
   * @throws {InvalidTokenError} on any failure; the reason is not disclosed to clients.
   */
  async verify(token: string, type: TokenType, header?: { kid?: string }): Promise<TokenClaims> {
    if (type === TokenType.refresh) return checked(this.refreshVerifier, token);
    const { kid } = header ?? unverifiedHeader(token);
    const pem = kid ? await this.keys.verificationKey(kid) : undefined;
    if (!kid || !pem) throw new InvalidTokenError('unknown kid');
    return checked(this.verifierFor(kid, pem, type), token);
  }

  /** The claim checks common to every kind: `typ`, `iss`, `aud` and the required claims (RFC 7519 §4.1). */
  private claimChecks(type: TokenType) {
    return {
      checkTyp: type,
      allowedIss: this.issuer,
      allowedAud: this.issuer,
      requiredClaims: ['sub', 'jti', 'exp', 'iat'],
    };
  }

  private verifierFor(kid: string, pem: string, type: Exclude<TokenType, 'refresh+jwt'>): VerifyFn {
    const id = `${kid} ${type}`;
    const known = this.verifiers.get(id);
    if (known && known.pem === pem) return known.verify;
    if (this.verifiers.size > 32) this.verifiers.clear(); // old kids after rotations
    const verify = createVerifier({
      ...this.claimChecks(type),
      key: pem,
      algorithms: [ALG],
      cache: VERIFIED_CACHE[type],
    }) as VerifyFn;
    this.verifiers.set(id, { pem, verify });
    return verify;
  }
}
