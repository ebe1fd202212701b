/**
 * The disclosures of an SD-JWT presentation, checked and unpacked here rather than trusted to
 * `@sd-jwt` 0.19, whose unpacking (`Object.assign`) lets a second disclosure of a claim silently
 * replace the first or a plaintext claim (docs/decisions/0027-own-sd-jwt-disclosure-unpacking.md;
 * docs/wallet.md "Verification steps"). RFC 9901 §7.1 (verification of disclosures) and SD-JWT VC
 * (draft-ietf-oauth-sd-jwt-vc, "Claims": claims that must not be selectively disclosed).
 */
import { createHash } from 'node:crypto';
import { PresentationError } from './errors.js';

const bad = (why: string) => new PresentationError('disclosures', `disclosures: ${why}`);

/**
 * Top-level claims an SD-JWT VC must carry in plaintext (draft-ietf-oauth-sd-jwt-vc, "Claims":
 * `iss`, `nbf`, `exp`, `cnf`, `vct`, `vct#integrity` and `status` "MUST NOT be selectively
 * disclosed"). Threat: a disclosed `vct` or `cnf` chosen among several the issuer signed, or
 * overriding the checked plaintext one.
 */
export const NOT_DISCLOSABLE = ['iss', 'nbf', 'exp', 'cnf', 'vct', 'vct#integrity', 'status'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets an own property, also for the name `__proto__` (plain assignment would set the prototype). */
function define(into: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(into, name, { value, enumerable: true, writable: true, configurable: true });
}

function decodeJson(part: string): unknown {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

/** One walk of the issuer-signed payload against the presented disclosures (RFC 9901 §7.1 steps 3–5). */
class Unpacker {
  /** Every digest met in the walk: one met twice is refused (RFC 9901 §7.1 step 4). */
  private readonly met = new Set<string>();
  /** The digests of disclosures the walk used. */
  readonly used = new Set<string>();

  constructor(private readonly byDigest: ReadonlyMap<string, unknown[]>) {}

  /** The disclosure of `digest`, if presented; refuses a digest met before. */
  private take(digest: unknown): unknown[] | undefined {
    if (typeof digest !== 'string') throw bad('a digest is not a string');
    // Threat: one disclosure counted twice, or two places claiming the same disclosed value.
    if (this.met.has(digest)) throw bad('a digest appears more than once');
    this.met.add(digest);
    const disclosure = this.byDigest.get(digest);
    if (disclosure) this.used.add(digest);
    return disclosure;
  }

  value(v: unknown): unknown {
    if (Array.isArray(v)) return this.array(v);
    if (isObject(v)) return this.object(v, false);
    return v;
  }

  object(obj: Record<string, unknown>, topLevel: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, v] of Object.entries(obj)) {
      if (name === '_sd' || (topLevel && name === '_sd_alg')) continue;
      define(out, name, this.value(v));
    }
    if (!('_sd' in obj)) return out;
    const digests = obj._sd;
    if (!Array.isArray(digests)) throw bad('_sd is not an array of digests');
    for (const digest of digests) {
      const disclosure = this.take(digest);
      if (!disclosure) continue; // a decoy, or a claim the holder did not disclose
      if (disclosure.length !== 3) throw bad('an object property is disclosed without a claim name');
      const name = disclosure[1];
      if (typeof name !== 'string') throw bad('a claim name is not a string');
      if (name === '_sd' || name === '...') throw bad(`a disclosure may not name the claim ${name}`);
      if (topLevel && (NOT_DISCLOSABLE as readonly string[]).includes(name))
        throw bad(`${name} must not be selectively disclosable`);
      // Threat: a second value for a claim, which one wins then depending on digest order.
      if (Object.hasOwn(out, name)) throw bad('a disclosure names a claim that already exists');
      define(out, name, this.value(disclosure[2]));
    }
    return out;
  }

  array(arr: unknown[]): unknown[] {
    const out: unknown[] = [];
    for (const el of arr) {
      if (isObject(el) && Object.keys(el).length === 1 && '...' in el) {
        const disclosure = this.take(el['...']);
        if (!disclosure) continue;
        if (disclosure.length !== 2) throw bad('an array element is disclosed with a claim name');
        out.push(this.value(disclosure[1]));
      } else out.push(this.value(el));
    }
    return out;
  }
}

/**
 * Checks the disclosures of a compact SD-JWT presentation and unpacks its claims (RFC 9901 §7.1):
 * every disclosure well formed, sent once and referenced (directly or through another presented
 * disclosure), every digest met once, no disclosed claim named `_sd` or `...` or already present at
 * its level, and none of `NOT_DISCLOSABLE` disclosed at the top level.
 * @param compact - `<issuer-signed JWT>~<disclosure>~…~<KB-JWT or empty>`.
 * @returns the issuer-signed payload with its disclosed claims in place, without `_sd` and `_sd_alg`.
 * @throws {PresentationError} `disclosures`: the first rule broken, named in its description.
 */
export function unpackDisclosures(compact: string): Record<string, unknown> {
  const parts = compact.split('~');
  let payload: unknown;
  try {
    payload = decodeJson(parts[0]!.split('.')[1] ?? '');
  } catch {
    throw bad('the issuer-signed JWT is malformed');
  }
  if (!isObject(payload)) throw bad('the issuer-signed JWT is malformed');
  if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256') throw bad('_sd_alg must be sha-256');
  const byDigest = new Map<string, unknown[]>();
  for (const d of parts.slice(1, -1)) {
    const digest = createHash('sha256').update(d, 'ascii').digest('base64url');
    if (byDigest.has(digest)) throw bad('a disclosure is sent twice');
    let decoded: unknown;
    try {
      decoded = decodeJson(d);
    } catch {
      throw bad('a disclosure is malformed');
    }
    if (!Array.isArray(decoded) || decoded.length < 2 || decoded.length > 3 || typeof decoded[0] !== 'string')
      throw bad('a disclosure is malformed');
    byDigest.set(digest, decoded);
  }
  const unpacker = new Unpacker(byDigest);
  const claims = unpacker.object(payload, true);
  if (unpacker.used.size !== byDigest.size) throw bad('a disclosure is not referenced');
  return claims;
}
