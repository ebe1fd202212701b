/**
 * Status lists of wallet credentials (docs/wallet.md "Verification steps", step 6, and "What a
 * credential issuer must meet"; draft-ietf-oauth-status-list §5, §8): the token is fetched through
 * the SSRF guard (ASVS 5.0 V1.3.6; `platform/net/guarded-fetch.ts`), must be a `statuslist+jwt` signed ES256
 * under an `x5c` chain to the organisation's trusted issuer certificates, and must name its own URI
 * as `sub`. Unreachable or invalid means reject: the verifier fails closed.
 */
import type { X509Certificate } from 'node:crypto';
import { guardedFetch } from '../../platform/net/guarded-fetch.js';
import type { OutboundPolicy } from '../../platform/net/outbound.js';
import { PresentationError } from './errors.js';
import { verifyChain } from './trust.js';

const bad = (why: string) => new PresentationError('status', `status list: ${why}`);

/** Longest time a status-list token is reused (seconds), whatever its `ttl` says. */
export const MAX_STATUS_CACHE_SECONDS = 300;
/** Most status-list tokens kept (count); the oldest goes first. */
export const MAX_STATUS_CACHE_ENTRIES = 1000;

/** A status-list token kept by `StatusListCache`. */
export interface CachedStatusList {
  text: string;
  /** Until when it may be reused (seconds since the epoch). */
  until: number;
  /** Its `x5c` header and `exp` claim, for the checks that depend on time. */
  x5c: unknown;
  exp: unknown;
  /** The anchor sets (fingerprints) under which its signature, `typ` and `sub` were verified. */
  verifiedUnder: Set<string>;
}

/**
 * Fetched status-list tokens, by URI, for as long as their `ttl` claim allows (at most 300 s, never
 * past `exp`; draft-ietf-oauth-status-list §13.7). A token without `ttl` is fetched every time.
 * A kept token also remembers the anchor sets it was verified under: its signature is not verified
 * again under the same anchors, but its chain's validity periods and its `exp` are, at each use.
 */
export class StatusListCache {
  private readonly entries = new Map<string, CachedStatusList>();

  /** The cached token of `uri` at `now` (seconds since the epoch), or undefined. */
  get(uri: string, now: number): CachedStatusList | undefined {
    const hit = this.entries.get(uri);
    if (hit && hit.until > now) return hit;
    this.entries.delete(uri);
    return undefined;
  }

  /**
   * Keeps a token verified under `anchorsKey` (the anchors' SHA-256 fingerprints, joined), per its
   * `ttl` and `exp` (seconds); a token kept already gains `anchorsKey`. A token without `ttl` is not kept.
   */
  put(
    uri: string,
    text: string,
    token: { header: Record<string, unknown>; payload: Record<string, unknown> },
    anchorsKey: string,
    now: number,
  ): void {
    const { header, payload } = token;
    const known = this.entries.get(uri);
    if (known?.text === text) {
      known.verifiedUnder.add(anchorsKey);
      return;
    }
    if (typeof payload.ttl !== 'number' || payload.ttl <= 0) return;
    let until = now + Math.min(payload.ttl, MAX_STATUS_CACHE_SECONDS);
    if (typeof payload.exp === 'number') until = Math.min(until, payload.exp);
    if (this.entries.size >= MAX_STATUS_CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(uri, { text, until, x5c: header.x5c, exp: payload.exp, verifiedUnder: new Set([anchorsKey]) });
  }
}

/** Longest status-list token accepted (characters). */
export const MAX_STATUS_LIST_CHARS = 512 * 1024;

/**
 * Verifies a JWT signed ES256 by the leaf of its `x5c` chain to the anchors.
 * @returns the verified payload.
 * @throws {PresentationError} `untrusted_issuer` (chain) or `credential_signature` (signature, alg).
 */
export async function verifyX5cJwt(
  compact: string,
  anchors: readonly X509Certificate[],
  now: Date,
): Promise<{ header: Record<string, unknown>; payload: Record<string, unknown> }> {
  // Loaded with the first status list, not at start-up: a process that signs no one in with a wallet need not load it.
  const { compactVerify, decodeProtectedHeader } = await import('jose');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(compact) as Record<string, unknown>;
  } catch {
    throw new PresentationError('credential_header', 'a JWT header is malformed');
  }
  const leaf = verifyChain(header.x5c, anchors, now);
  try {
    const { payload } = await compactVerify(compact, leaf.publicKey, { algorithms: ['ES256'] });
    return { header, payload: JSON.parse(Buffer.from(payload).toString('utf8')) };
  } catch {
    throw new PresentationError('credential_signature', 'a JWT signature or alg is invalid');
  }
}

/**
 * Fetches and checks the status-list token at `uri`.
 * @param anchors - the organisation's trusted issuer certificates.
 * @param policy - the outbound policy (`ASSENT_WALLET_ALLOW_HTTP_HOSTS`).
 * @param cache - tokens fetched before, reused within their `ttl`; one verified before under the
 *   same anchors has its chain's validity periods and its `exp` checked again, not its signature.
 * @returns the token (compact JWT), for `@sd-jwt` to read the credential's bits from.
 * @throws {PresentationError} `status` when it cannot be fetched or is not valid.
 */
export async function fetchStatusList(
  uri: string,
  anchors: readonly X509Certificate[],
  policy: OutboundPolicy,
  now: Date,
  cache?: StatusListCache,
): Promise<string> {
  const t = Math.floor(now.getTime() / 1000);
  const anchorsKey = anchors.map((a) => a.fingerprint256).join(',');
  const kept = cache?.get(uri, t);
  if (kept?.verifiedUnder.has(anchorsKey)) {
    // Verified before under these very anchors: only what depends on time is checked again.
    try {
      verifyChain(kept.x5c, anchors, now);
    } catch {
      throw bad('is not signed under a trusted issuer certificate');
    }
    if (typeof kept.exp === 'number' && kept.exp + 60 < t) throw bad('is expired');
    return kept.text;
  }
  let text = kept?.text;
  if (text === undefined) {
    try {
      const res = await guardedFetch(uri, { headers: { accept: 'application/statuslist+jwt' } }, policy);
      if (res.status !== 200) throw new Error(String(res.status));
      text = (await res.text()).trim();
    } catch {
      throw bad('cannot be fetched');
    }
  }
  if (text.length > MAX_STATUS_LIST_CHARS) throw bad('is too large');
  const { decodeJwt, decodeProtectedHeader } = await import('jose');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(text) as Record<string, unknown>;
    decodeJwt(text);
  } catch {
    throw bad('is not a JWT');
  }
  if (header.typ !== 'statuslist+jwt') throw bad('typ must be statuslist+jwt');
  const { payload } = await verifyX5cJwt(text, anchors, now).catch(() => {
    throw bad('is not signed under a trusted issuer certificate');
  });
  if (payload.sub !== uri) throw bad('sub differs from its URI');
  if (typeof payload.exp === 'number' && payload.exp + 60 < t) throw bad('is expired');
  cache?.put(uri, text, { header, payload }, anchorsKey, t);
  return text;
}
