/**
 * The x5c trust chain of a credential or status-list token to the organisation's trusted issuer
 * certificates (../shared/WALLET.md §4.4 a, e; HAIP 1.0 §6.1; RFC 5280 §6 in the subset
 * node:crypto exposes: names, signatures, validity, CA flags). No library validates this chain for
 * us (docs/decisions/0015-wallet-sign-in-libraries.md §3 gotcha 4).
 */
import { X509Certificate } from 'node:crypto';
import { PresentationError } from './errors.js';
import { isCurrent, isSelfSigned } from './pem.js';

/** Longest x5c accepted (certificates); a longer one is refused before any parsing cost. */
export const MAX_CHAIN = 5;

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

/**
 * Validates an `x5c` header against trust anchors and returns the leaf, whose key signs the JWT.
 * Rules: every certificate current; each one issued and signed by the next, which is a CA; the
 * last one issued by an anchor (an anchor repeated at the end of x5c is tolerated and ignored, as
 * HAIP says the anchor SHOULD NOT be sent); the leaf is neither a CA, nor self-signed, nor an anchor.
 * @param x5c - the JWT header's `x5c`: base64 DER certificates, leaf first.
 * @param anchors - the organisation's trusted issuer certificates.
 * @param now - the time of the check.
 * @throws {PresentationError} `untrusted_issuer` when any rule fails.
 */
export function verifyChain(x5c: unknown, anchors: readonly X509Certificate[], now: Date): X509Certificate {
  let chain = parse(x5c);
  const isAnchor = (c: X509Certificate) => anchors.some((a) => a.fingerprint256 === c.fingerprint256);
  if (chain.length > 1 && isAnchor(chain[chain.length - 1]!)) chain = chain.slice(0, -1);
  const leaf = chain[0]!;
  // Threat: a trust anchor or a self-made certificate presented as the issuer itself.
  if (isAnchor(leaf) || leaf.ca || isSelfSigned(leaf)) throw untrusted('the leaf is a CA, self-signed or an anchor');
  for (const cert of chain) if (!isCurrent(cert, now)) throw untrusted('a certificate is expired or not yet valid');
  for (let i = 0; i + 1 < chain.length; i++) {
    const parent = chain[i + 1]!;
    if (!parent.ca || !issuedBy(chain[i]!, parent)) throw untrusted('a certificate is not issued by the next one');
  }
  const last = chain[chain.length - 1]!;
  const anchor = anchors.find((a) => a.ca && isCurrent(a, now) && issuedBy(last, a));
  if (!anchor) throw untrusted('no trusted issuer certificate issued it');
  return leaf;
}
