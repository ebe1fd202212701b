/**
 * Recovery codes (docs/security.md "Recovery codes"): ten per user, each 120 random bits written as 24 characters of
 * Crockford's base32 in four groups (`k3m9q7-xw2dab-4n8pqr-t5vz0c`), shown once and stored as their SHA-256 only.
 * With at least 112 bits of entropy a lookup secret needs no salt or slow hash (OWASP ASVS 5.0 V6.5.2), and guessing
 * one is as hard as guessing a key; every wrong one is throttled as a login is besides.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '../../platform/crypto/digest.js';

/** How many codes a set has (count). */
export const RECOVERY_CODE_COUNT = 10;
/** Characters per code (count): 24 × 5 bits = 120 bits. */
const CODE_CHARS = 24;
/** Crockford's base32: no I, L, O or U, so that a code read aloud or copied by hand is not mistaken. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** One new code: 24 characters (120 bits), as four groups of six joined by dashes. */
function newCode(): string {
  const chars = Array.from(randomBytes(CODE_CHARS), (b) => ALPHABET[b & 31]).join('');
  return chars.match(/.{6}/g)!.join('-');
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
 * @returns null when the text cannot be a code (not 24 characters of the alphabet).
 */
export function recoveryCodeHash(typed: string): Buffer | null {
  const code = typed
    .toLowerCase()
    .replace(/[\s-]+/g, '')
    .replace(/[il]/g, '1')
    .replace(/o/g, '0');
  if (code.length !== CODE_CHARS || [...code].some((c) => !ALPHABET.includes(c))) return null;
  return sha256(code);
}
