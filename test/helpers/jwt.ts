/**
 * JWT helpers for the identity tests: decoding, and building tokens (valid or hostile) with the
 * running server's own signing key, so that a negative test can change exactly one property.
 */
import { createPrivateKey, createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { call, type TestAssent } from './assent.js';

/** The claims Assent puts in an access/refresh token. */
export interface SessionClaims extends JWTPayload {
  sub: string;
  sid: string;
  client_id: string;
  jti: string;
}

/** Decoded header and payload of a compact JWT (no verification). */
export function decode(token: string): { header: ReturnType<typeof decodeProtectedHeader>; payload: SessionClaims } {
  return { header: decodeProtectedHeader(token), payload: decodeJwt(token) as SessionClaims };
}

/** base64url of a UTF-8 string or JSON value. */
export function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** Everything a minted token may vary; absent fields take the values the server would use. */
export interface MintOptions {
  header?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  /** Seconds since the epoch; default now. */
  iat?: number;
  /** Seconds since the epoch; default iat + 900. */
  exp?: number;
  /** Signing key; default the server's active key. */
  key?: CryptoKey | KeyObject;
}

/**
 * Signs a token the way the server does (ES256, `typ: at+jwt`, iss = aud = public URL, sub, jti,
 * sid, client_id), starting from the claims of `like` (a real access token of the server).
 */
export async function mintLike(t: TestAssent, like: string, options: MintOptions = {}): Promise<string> {
  const { kid, privatePem } = await t.ctx.keys.signingKey();
  const real = decode(like).payload;
  const iat = options.iat ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: t.config.publicUrl,
    aud: t.config.publicUrl,
    sub: real.sub,
    sid: real.sid,
    client_id: real.client_id,
    jti: randomUUID(),
    iat,
    exp: options.exp ?? iat + 900,
    ...options.claims,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  return new SignJWT(claims as JWTPayload)
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt', ...options.header } as { alg: string })
    .sign(options.key ?? createPrivateKey(privatePem));
}

/** A fresh ES256 private key that the server has never seen. */
export async function strangerKey(): Promise<CryptoKey> {
  return (await generateKeyPair('ES256')).privateKey as CryptoKey;
}

/** The server's JWKS. */
export async function fetchJwks(url: string): Promise<{ keys: Array<Record<string, string>> }> {
  const res = await call(`${url}/.well-known/jwks.json`);
  if (res.status !== 200) throw new Error(`JWKS: ${res.status}`);
  return res.body;
}

/** The PEM (SPKI) of a public JWK. */
export function jwkToPem(jwk: Record<string, string>): string {
  const { kty, crv, x, y } = jwk;
  return createPublicKey({ key: { kty, crv, x, y } as never, format: 'jwk' }).export({
    type: 'spki',
    format: 'pem',
  }) as string;
}

/** An unsigned (`alg: none`) token with the given header and claims; `signature` defaults to empty. */
export function unsigned(header: Record<string, unknown>, payload: Record<string, unknown>, signature = ''): string {
  return `${b64url({ ...header, alg: 'none' })}.${b64url(payload)}.${signature}`;
}

/** An HS256 token whose HMAC secret is `secret` (e.g. the server's public key as text). */
export async function hs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  secret: string,
): Promise<string> {
  return new SignJWT(payload as JWTPayload)
    .setProtectedHeader({ ...header, alg: 'HS256' } as { alg: string })
    .sign(new TextEncoder().encode(secret));
}
