/**
 * The test issuer of `dc+sd-jwt` credentials (docs/wallet.md "Development and tests"):
 * `@sd-jwt/sd-jwt-vc` 0.19 with an ES256 signer, header `x5c`, payload `iss`, `vct`, `iat`, `exp`,
 * `cnf.jwk`, an optional status list reference, and the claims disclosable one by one.
 */
import { createHash, randomBytes, webcrypto } from 'node:crypto';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { importJWK, SignJWT } from 'jose';
import type { TestCert } from './pki.js';

/** A holder's key pair (the wallet's): `cnf.jwk` and the KB-JWT signer. */
export interface HolderKey {
  publicJwk: JsonWebKey;
  privateJwk: JsonWebKey;
  privateKey: CryptoKey;
}

/** Makes a P-256 holder key. */
export async function holderKey(): Promise<HolderKey> {
  const pair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  return {
    publicJwk: (await webcrypto.subtle.exportKey('jwk', pair.publicKey)) as JsonWebKey,
    privateJwk: (await webcrypto.subtle.exportKey('jwk', pair.privateKey)) as JsonWebKey,
    privateKey: pair.privateKey,
  };
}

/** What to issue; defaults make a valid Authenticator credential. */
export interface IssueOptions {
  holder: HolderKey;
  /** The signing certificate (default: the caller passes pki.issuer). */
  signer: TestCert;
  /** x5c header; default `[signer]`. `null` leaves it out. */
  x5c?: string[] | null;
  vct?: string;
  iss?: string;
  /** Seconds since the epoch. */
  iat?: number;
  exp?: number;
  nbf?: number;
  typ?: string;
  status?: { idx: number; uri: string };
  claims?: Record<string, unknown>;
  /** Leave `cnf` out. */
  noCnf?: boolean;
}

/** The default disclosable claims. */
export const ALICE = { email_address: 'alice.wallet@example.test', given_name: 'Alice', family_name: 'Wallet' };

/**
 * Issues a credential.
 * @returns the compact SD-JWT (issuer JWT and every disclosure, ending with `~`).
 */
export async function issue(opts: IssueOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = opts.claims ?? ALICE;
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
    signAlg: 'ES256',
    signer: await ES256.getSigner(opts.signer.privateJwk),
  });
  const payload: Record<string, unknown> = {
    iss: opts.iss ?? 'https://issuer.test',
    vct: opts.vct ?? 'io.igrant.authenticator',
    iat: opts.iat ?? now - 10,
    exp: opts.exp ?? now + 3600,
    ...(opts.nbf !== undefined ? { nbf: opts.nbf } : {}),
    ...(opts.noCnf ? {} : { cnf: { jwk: opts.holder.publicJwk } }),
    ...(opts.status ? { status: { status_list: opts.status } } : {}),
    ...claims,
  };
  const header: Record<string, unknown> = {};
  if (opts.x5c !== null) header.x5c = opts.x5c ?? [opts.signer.b64];
  if (opts.typ) header.typ = opts.typ;
  return sdjwt.issue(payload as never, { _sd: Object.keys(claims) } as never, { header: header as never });
}

/** A disclosure built by hand: `[salt, name, value]` (object property) or `[salt, value]` (array element), RFC 9901 §4.2. */
export function disclosure(...content: [string, unknown] | [unknown]): { encoded: string; digest: string } {
  const encoded = Buffer.from(JSON.stringify([randomBytes(16).toString('base64url'), ...content])).toString(
    'base64url',
  );
  return { encoded, digest: createHash('sha256').update(encoded).digest('base64url') };
}

/** The plaintext claims of a valid credential for `holder` (no `_sd`): `iss`, `vct`, `iat`, `exp`, `cnf`. */
export function basePayload(holder: HolderKey): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: 'https://issuer.test',
    vct: 'io.igrant.authenticator',
    iat: now - 10,
    exp: now + 3600,
    cnf: { jwk: holder.publicJwk },
  };
}

/**
 * Signs an SD-JWT VC by hand, for the issuers the library would not be: any payload (its `_sd`
 * arrays and `...` elements as given) and any disclosures, in that order.
 * @returns the compact SD-JWT, ending with `~`.
 */
export async function issueRaw(signer: TestCert, payload: Record<string, unknown>, disclosures: string[]) {
  const jwt = await new SignJWT({ _sd_alg: 'sha-256', ...payload })
    .setProtectedHeader({ alg: 'ES256', typ: 'dc+sd-jwt', x5c: [signer.b64] })
    .sign(await importJWK(signer.privateJwk as never, 'ES256'));
  return `${[jwt, ...disclosures].join('~')}~`;
}
