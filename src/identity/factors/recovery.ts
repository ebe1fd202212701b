/**
 * Recovery codes (docs/security.md "Recovery codes"): ten per user, each 50 random bits written as ten characters of
 * Crockford's base32 in two groups (`k3m9q-7xw2d`), shown once and stored as their SHA-256 only. A code of 50
 * random bits needs no slow hash: guessing one is as hard as guessing a key (ASVS 5.0 V6.6.2 asks 20 bits at least),
 * and every wrong one is throttled as a login is.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../platform/crypto/digest.js';

/** How many codes a set has (count). */
export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32: no I, L, O or U, so that a code read aloud or copied by hand is not mistaken. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** One new code: 10 characters (50 bits), as `xxxxx-xxxxx`. */
function newCode(): string {
  const bytes = randomBytes(10);
  const chars = Array.from(bytes, (b) => ALPHABET[b & 31]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** A new set of `RECOVERY_CODE_COUNT` codes, distinct. */
export function newRecoveryCodes(): string[] {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(newCode());
  return [...codes];
}

/**
 * The stored form of a code as typed: lower case, without spaces or dashes, the letters Crockford reads as digits
 * (i, l → 1; o → 0) mapped, then SHA-256.
 * @returns null when the text cannot be a code (not ten characters of the alphabet).
 */
export function recoveryCodeHash(typed: string): Buffer | null {
  const code = typed
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/[il]/g, '1')
    .replace(/o/g, '0');
  if (code.length !== 10 || [...code].some((c) => !ALPHABET.includes(c))) return null;
  return sha256(code);
}
