/**
 * The stored form of a secret value Assent issued itself (a token ID, reset or invitation token,
 * federation state or code, relying-party secret): its SHA-256, so that a reader of the database
 * holds nothing to present. A fast unsalted hash is adequate only for such high-entropy random
 * values (NIST SP 800-63B §5.1.1.2 asks for a slow salted hash of secrets people choose: passwords
 * use argon2id, `identity/users/password-hashing.ts`).
 */
import { createHash } from 'node:crypto';

/**
 * SHA-256 of `value`'s UTF-8 bytes.
 * @param value - the value as issued or as presented.
 * @returns the 32-byte digest.
 */
export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
