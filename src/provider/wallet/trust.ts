/**
 * The x5c trust chain of a credential or status-list token to the organisation's trusted issuer
 * certificates (docs/wallet.md "Verification steps", step 6, and "What a credential issuer must
 * meet"; HAIP 1.0 §6.1; RFC 5280 §6 in the subset node:crypto exposes: names, signatures, validity,
 * CA flags). No library validates this chain for us
 * (docs/decisions/0015-wallet-sign-in-libraries.md §3 gotcha 4).
 *
 * A chain's parsing and signatures are worth remembering: every presentation of an issuer carries
 * the same x5c, and each check of it parses two or three certificates and verifies their ECDSA
 * signatures (as much work as the presentation's own two signatures). `ChainMemo` keeps, by the
 * exact x5c text and the exact set of anchors, the outcome of the rules that do not depend on time;
 * the validity periods are checked again at every use.
 */
import { X509Certificate } from 'node:crypto';
import { PresentationError } from './errors.js';
import { isCurrent, isSelfSigned } from './pem.js';

/** Longest x5c accepted (certificates); a longer one is refused before any parsing cost. */
export const MAX_CHAIN = 5;
/** Most chains (and most anchor certificates) remembered per process (count); the oldest goes first. */
export const MAX_REMEMBERED = 1000;

const untrusted = (why: string) => new PresentationError('untrusted_issuer', `issuer certificate chain: ${why}`);

function parse(x5c: unknown): X509Certificate[] {
  if (!Array.isArray(x5c) || x5c.length === 0) throw untrusted('x5c is missing');
  if (x5c.length > MAX_CHAIN) throw untrusted('x5c is too long');
  try {
    return x5c.map((entry) => {
      if (typeof entry !== 'string') throw new Error('not a string');
      return new X509Certificate(Buffer.from(entry, 'base64'));
    });
  } catch {
    throw untrusted('x5c holds something that is not a certificate');
  }
}

const issuedBy = (child: X509Certificate, parent: X509Certificate) =>
  child.checkIssued(parent) && child.verify(parent.publicKey);

/** A map that forgets its oldest entry beyond `MAX_REMEMBERED`. */
function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

const anchorsByPem = new Map<string, X509Certificate>();

/**
 * The organisation's trusted issuer certificates, parsed once per process per PEM (they are read
 * from the transaction's settings snapshot at every response).
 * @param pems - PEM certificates, as validated by the settings (settings-rules.ts).
 * @throws {Error} when a PEM is not a certificate (the settings rules refuse such input).
 */
export function anchorCertificates(pems: readonly string[]): X509Certificate[] {
  return pems.map((pem) => anchorsByPem.get(pem) ?? remember(anchorsByPem, pem, new X509Certificate(pem)));
}

/** A chain that passed every rule but the validity periods: the certificates to check at each use. */
interface CheckedChain {
  leaf: X509Certificate;
  /** The chain without a repeated anchor, and the anchor that issued its last certificate. */
  certificates: X509Certificate[];
}

const chains = new Map<string, CheckedChain>();

/** The rules that do not depend on time; throws at the first that fails. */
function checkStructure(x5c: unknown, anchors: readonly X509Certificate[], now: Date): CheckedChain {
  let chain = parse(x5c);
  const isAnchor = (c: X509Certificate) => anchors.some((a) => a.fingerprint256 === c.fingerprint256);
  if (chain.length > 1 && isAnchor(chain[chain.length - 1]!)) chain = chain.slice(0, -1);
  const leaf = chain[0]!;
  // Threat: a trust anchor or a self-made certificate presented as the issuer itself.
  if (isAnchor(leaf) || leaf.ca || isSelfSigned(leaf)) throw untrusted('the leaf is a CA, self-signed or an anchor');
  for (let i = 0; i + 1 < chain.length; i++) {
    const parent = chain[i + 1]!;
    if (!parent.ca || !issuedBy(chain[i]!, parent)) throw untrusted('a certificate is not issued by the next one');
  }
  const last = chain[chain.length - 1]!;
  // An anchor that is not current is skipped here, so that a current one that also issued it is found.
  const anchor = anchors.find((a) => a.ca && isCurrent(a, now) && issuedBy(last, a));
  if (!anchor) throw untrusted('no trusted issuer certificate issued it');
  return { leaf, certificates: [...chain, anchor] };
}

/**
 * Validates an `x5c` header against trust anchors and returns the leaf, whose key signs the JWT.
 * Rules: every certificate current; each one issued and signed by the next, which is a CA; the
 * last one issued by an anchor (an anchor repeated at the end of x5c is tolerated and ignored, as
 * HAIP says the anchor SHOULD NOT be sent); the leaf is neither a CA, nor self-signed, nor an anchor.
 * A chain that passed before, with the same anchors, is not parsed or verified again; its
 * certificates' (and its anchor's) validity periods are checked against `now` at every call.
 * @param x5c - the JWT header's `x5c`: base64 DER certificates, leaf first.
 * @param anchors - the organisation's trusted issuer certificates.
 * @param now - the time of the check.
 * @throws {PresentationError} `untrusted_issuer` when any rule fails.
 */
export function verifyChain(x5c: unknown, anchors: readonly X509Certificate[], now: Date): X509Certificate {
  const key =
    Array.isArray(x5c) && x5c.length <= MAX_CHAIN && x5c.every((e) => typeof e === 'string')
      ? `${anchors.map((a) => a.fingerprint256).join(',')}|${x5c.join(',')}`
      : null;
  const current = (c: CheckedChain) => c.certificates.every((cert) => isCurrent(cert, now));
  const known = key ? chains.get(key) : undefined;
  if (known && current(known)) return known.leaf;
  // Unknown, or a certificate of the remembered chain is out of its validity period (another
  // anchor may still issue it): checked in full. Only a chain that passes is remembered.
  if (key) chains.delete(key);
  const checked = checkStructure(x5c, anchors, now);
  if (!current(checked)) throw untrusted('a certificate is expired or not yet valid');
  if (key) remember(chains, key, checked);
  return checked.leaf;
}
