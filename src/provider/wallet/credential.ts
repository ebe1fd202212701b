/**
 * Verification of one `dc+sd-jwt` presentation (docs/wallet.md "Verification steps", step 6;
 * SD-JWT VC; RFC 9901), on `@sd-jwt/sd-jwt-vc` 0.19 `verify` with the key-binding nonce always
 * passed (without it the library skips key binding, docs/decisions/0015-wallet-sign-in-libraries.md
 * §5), plus the checks it leaves out: the issuer's x5c chain, `typ`, `alg`, `iss`, `vct`, `cnf`,
 * the disclosures (checked and unpacked by `unpackDisclosures`, whose claims are the ones
 * returned), the status list's `typ`/`sub`/chain, and the KB-JWT's `typ`, `alg`, `aud` and `iat`
 * window. Each check fails with its own description (docs/wallet.md "Verification steps").
 */
import { createPublicKey, type JsonWebKey, verify, type X509Certificate } from 'node:crypto';
import type { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { unpackDisclosures } from './disclosures.js';
import { PresentationError } from './errors.js';
import { fetchStatusList, type StatusListCache } from './status.js';
import { verifyChain } from './trust.js';

/** Clock skew allowed on the credential's `iat`/`nbf`/`exp` and the KB-JWT's future `iat` (seconds). */
export const SKEW_SECONDS = 60;
/** Oldest KB-JWT `iat` accepted (seconds before now): docs/wallet.md "Verification steps", step 6. */
export const KB_MAX_AGE_SECONDS = 300;

/** What one presentation must match. */
export interface PresentationContext {
  /** The organisation's trusted issuer certificates. */
  anchors: readonly X509Certificate[];
  /** The full client identifier, prefix included (OpenID4VP 1.0 §14.8): the KB-JWT's `aud`. */
  clientId: string;
  /** The transaction's nonce: the KB-JWT's `nonce`. */
  nonce: string;
  /** The credential query's `meta.vct_values`. */
  vctValues: readonly string[];
  /** The outbound policy for status lists. */
  outbound: OutboundPolicy;
  /** Status-list tokens fetched before. */
  statusCache?: StatusListCache;
  now: Date;
}

/** A verified credential: its issuer, type and disclosed claims (never logged). */
export interface VerifiedCredential {
  issuer: string;
  vct: string;
  claims: Record<string, unknown>;
}

/** jose's module, as `import('jose')` resolves it. */
type Jose = typeof import('jose');

const fail = (reason: PresentationError['reason'], why: string) => new PresentationError(reason, why);

function es256(data: string, sig: string, key: ReturnType<typeof createPublicKey>): boolean {
  // ES256 signatures are raw r‖s (RFC 7518 §3.4), not DER.
  try {
    return verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(sig, 'base64url'));
  } catch {
    return false;
  }
}

function headerOf(data: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(data.split('.')[0] ?? '', 'base64url').toString('utf8'));
}

/** The reason of an error thrown inside `@sd-jwt`'s `verify`, from its (fixed) messages. */
function libraryReason(err: unknown): PresentationError {
  if (err instanceof PresentationError) return err;
  const message = err instanceof Error ? err.message : '';
  // @sd-jwt/jwt-status-list's getStatus: an `idx` beyond the list's length.
  if (/index out of bounds/i.test(message)) return fail('status', 'status list: the index is out of range');
  if (/status/i.test(message)) return fail('status', 'status list: the credential is not valid');
  if (/key ?binding|kb|nonce|sd_hash/i.test(message)) return fail('key_binding', 'key binding JWT is invalid');
  if (/expired|not yet valid|iat|nbf|exp/i.test(message))
    return fail('credential_claims', 'credential time claims invalid');
  if (/digest|disclosure/i.test(message)) return fail('disclosures', 'disclosures are invalid');
  return fail('credential_signature', 'credential signature is invalid');
}

/**
 * The credential's `iss` is an https URL that the issuer certificate names as a
 * uniformResourceIdentifier subjectAltName (SD-JWT VC, draft-ietf-oauth-sd-jwt-vc-13 §3.5: with
 * `x5c`, "the iss value MUST match a uniformResourceIdentifier SAN entry of the leaf certificate"
 * unless it is a `dns:` URI, which an https `iss` never is). Threat: a certificate issued to one
 * issuer vouching for credentials that claim another; a leaf naming no URI names no issuer.
 */
function issuerNamedByLeaf(iss: unknown, leaf: X509Certificate): iss is string {
  if (typeof iss !== 'string' || !URL.canParse(iss) || new URL(iss).protocol !== 'https:') return false;
  const uris = (leaf.subjectAltName ?? '')
    .split(', ')
    .filter((n) => n.startsWith('URI:'))
    .map((n) => n.slice(4));
  return uris.includes(iss);
}

/**
 * The plaintext claims an SD-JWT VC needs, each refused with its own description (SD-JWT VC,
 * draft-ietf-oauth-sd-jwt-vc, "Claims"; docs/wallet.md "Verification steps" 6).
 * @param claims - the unpacked payload (`unpackDisclosures`).
 * @param leaf - the issuer certificate, which must name `iss`.
 * @returns the credential's `iss` and `vct`.
 * @throws {PresentationError} `credential_claims` or `status` (a malformed status reference).
 */
function checkClaims(claims: Record<string, unknown>, leaf: X509Certificate, ctx: PresentationContext) {
  const { iss, vct, cnf, status } = claims;
  if (vct === undefined) throw fail('credential_claims', 'vct is missing');
  if (typeof vct !== 'string' || !ctx.vctValues.includes(vct)) throw fail('credential_claims', 'vct is not requested');
  if (iss === undefined) throw fail('credential_claims', 'iss is missing');
  if (!issuerNamedByLeaf(iss, leaf))
    throw fail('credential_claims', 'iss must be an https URL named by the issuer certificate');
  // Threat: a credential that anyone holding it can present (no key to bind the presentation to).
  const jwk = (cnf as { jwk?: unknown } | undefined)?.jwk;
  if (!jwk || typeof jwk !== 'object') throw fail('credential_claims', 'cnf.jwk is missing');
  if (status !== undefined) {
    const ref = (status as { status_list?: { idx?: unknown; uri?: unknown } } | null)?.status_list;
    if (!ref || !Number.isSafeInteger(ref.idx) || (ref.idx as number) < 0 || typeof ref.uri !== 'string')
      throw fail('status', 'status list: the credential’s status reference is malformed');
  }
  return { iss, vct };
}

/** The KB-JWT's header: `typ` `kb+jwt`, `alg` ES256 (RFC 9901 §4.3; HAIP 1.0). Threat: `alg: none`. */
function checkKbHeader(kbJwt: string, decodeProtectedHeader: Jose['decodeProtectedHeader']): void {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(kbJwt) as Record<string, unknown>;
  } catch {
    throw fail('key_binding', 'key binding JWT is malformed');
  }
  if (header.typ !== 'kb+jwt' || header.alg !== 'ES256')
    throw fail('key_binding', 'key binding JWT must be typ kb+jwt, alg ES256');
}

/**
 * Verifies one presentation.
 * @param compact - `<issuer JWT>~<disclosures>~<KB-JWT>`.
 * @returns the credential's issuer, vct and disclosed claims.
 * @throws {PresentationError} naming the check that failed.
 */
export async function verifyPresentation(compact: string, ctx: PresentationContext): Promise<VerifiedCredential> {
  if (typeof compact !== 'string' || !compact.includes('~')) throw fail('vp_token', 'a presentation is not an SD-JWT');
  const parts = compact.split('~');
  // Threat: a presentation without holder binding, replayable by anyone who saw it
  // (test/wallet-negative.test.ts, "N7: a presentation without KB-JWT is refused (holder binding required)").
  if (!parts[parts.length - 1]) throw fail('key_binding', 'key binding JWT is missing');
  // Loaded with the first presentation, not at start-up: a process that signs no one in with a wallet need not load them.
  const [{ decodeProtectedHeader }, { SDJwtVcInstance }, { digest }] = await Promise.all([
    import('jose'),
    import('@sd-jwt/sd-jwt-vc'),
    import('@sd-jwt/crypto-nodejs'),
  ]);
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(parts[0]!) as Record<string, unknown>;
  } catch {
    throw fail('credential_header', 'the issuer-signed JWT header is malformed');
  }
  if (header.typ !== 'dc+sd-jwt' || header.alg !== 'ES256')
    throw fail('credential_header', 'the credential must be typ dc+sd-jwt, alg ES256');
  const leaf = verifyChain(header.x5c, ctx.anchors, ctx.now);
  // The issuer signature before any claim is read, so a forged credential is named as such.
  const [h, p, s] = parts[0]!.split('.');
  if (!s || !es256(`${h}.${p}`, s, leaf.publicKey))
    throw fail('credential_signature', 'credential signature is invalid');
  const claims = unpackDisclosures(compact);
  const { iss, vct } = checkClaims(claims, leaf, ctx);
  checkKbHeader(parts[parts.length - 1]!, decodeProtectedHeader);
  // Which signature the library found bad, to name the failed check (its messages do not say).
  const signatures: { issuer?: boolean; kb?: boolean } = {};
  // The status-list tokens fetchStatusList returned: it verified them (signature, chain, typ, sub).
  const verifiedStatus = new Set<string>();
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    verifier: (data, sig) => {
      signatures.issuer = es256(data, sig, leaf.publicKey);
      return signatures.issuer;
    },
    statusVerifier: (data, sig) => {
      if (verifiedStatus.has(`${data}.${sig}`)) return true;
      const statusLeaf = verifyChain(headerOf(data).x5c, ctx.anchors, ctx.now);
      return headerOf(data).alg === 'ES256' && es256(data, sig, statusLeaf.publicKey);
    },
    kbVerifier: (data, sig, payload) => {
      const jwk = (payload.cnf as { jwk?: JsonWebKey } | undefined)?.jwk;
      signatures.kb =
        Boolean(jwk) &&
        headerOf(data).alg === 'ES256' &&
        es256(data, sig, createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }));
      return signatures.kb;
    },
    statusListFetcher: async (uri) => {
      const token = await fetchStatusList(uri, ctx.anchors, ctx.outbound, ctx.now, ctx.statusCache);
      verifiedStatus.add(token);
      return token;
    },
    statusValidator: async (status) => {
      if (status !== 0) throw fail('status', 'status list: the credential is not valid');
    },
  });
  const nowSeconds = Math.floor(ctx.now.getTime() / 1000);
  let result: Awaited<ReturnType<SDJwtVcInstance['verify']>>;
  try {
    result = await sdjwt.verify(compact, {
      keyBindingNonce: ctx.nonce,
      currentDate: nowSeconds,
      skewSeconds: SKEW_SECONDS,
      requiredClaimKeys: ['iss', 'vct', 'cnf'],
    });
  } catch (err) {
    if (signatures.issuer === false) throw fail('credential_signature', 'credential signature is invalid');
    if (signatures.kb === false) throw fail('key_binding', 'key binding JWT signature is invalid');
    throw libraryReason(err);
  }
  const kb = result.kb?.payload as Record<string, unknown> | undefined;
  if (!kb) throw fail('key_binding', 'key binding JWT is missing');
  // The library checks only that aud and iat exist (docs/decisions/0015 §5): replay to another verifier.
  if (kb.aud !== ctx.clientId) throw fail('key_binding', 'key binding JWT aud is not this verifier');
  const iat = kb.iat;
  if (typeof iat !== 'number' || iat < nowSeconds - KB_MAX_AGE_SECONDS || iat > nowSeconds + SKEW_SECONDS)
    throw fail('key_binding', 'key binding JWT iat is out of range');
  // Our own unpacking, not the library's payload: its Object.assign lets one disclosure replace another.
  return { issuer: iss, vct, claims };
}
