/**
 * RFC 9901 §7.1 checks that `@sd-jwt` 0.19 leaves out (docs/decisions/0015-wallet-sign-in-libraries.md
 * §5): every disclosure is referenced by a digest of the issuer-signed payload or of another
 * disclosure, and none is sent twice. The library silently ignores both.
 */
import { createHash } from 'node:crypto';
import { PresentationError } from './errors.js';

const bad = (why: string) => new PresentationError('disclosures', `disclosures: ${why}`);

function collect(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const el of value) {
      if (el && typeof el === 'object' && !Array.isArray(el) && Object.keys(el).length === 1 && '...' in el)
        into.add(String((el as Record<string, unknown>)['...']));
      collect(el, into);
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '_sd' && Array.isArray(v)) for (const d of v) into.add(String(d));
      collect(v, into);
    }
  }
}

function decodeJson(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

/**
 * Refuses unreferenced and duplicate disclosures of a compact SD-JWT presentation.
 * @param compact - `<issuer-signed JWT>~<disclosure>~…~<KB-JWT or empty>`.
 * @throws {PresentationError} `disclosures`: malformed, sent twice, unreferenced, or an `_sd_alg` other than sha-256.
 */
export function checkDisclosures(compact: string): void {
  const parts = compact.split('~');
  const jwt = parts[0]!;
  const disclosures = parts.slice(1, -1);
  let payload: Record<string, unknown>;
  try {
    payload = decodeJson(jwt.split('.')[1] ?? '') as Record<string, unknown>;
  } catch {
    throw bad('the issuer-signed JWT is malformed');
  }
  if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256') throw bad('_sd_alg must be sha-256');
  const referenced = new Set<string>();
  collect(payload, referenced);
  const seen = new Set<string>();
  for (const d of disclosures) {
    const digest = createHash('sha256').update(d, 'ascii').digest('base64url');
    if (seen.has(digest)) throw bad('a disclosure is sent twice');
    seen.add(digest);
    let decoded: unknown;
    try {
      decoded = decodeJson(d);
    } catch {
      throw bad('a disclosure is malformed');
    }
    if (!Array.isArray(decoded) || decoded.length < 2 || decoded.length > 3) throw bad('a disclosure is malformed');
    collect(decoded[decoded.length - 1], referenced);
  }
  for (const digest of seen) if (!referenced.has(digest)) throw bad('a disclosure is not referenced');
}
