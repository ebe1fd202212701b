/**
 * Password hashing with argon2id through `@node-rs/argon2`, whose hash and verify run on the
 * libuv thread pool, so they never block the event loop.
 *
 * Rules: ASVS 5.0 V11.4.2 (argon2id, m ≥ 19456 KiB, t ≥ 2, p ≥ 1); RFC 9106.
 */
import { Algorithm, hash, verify } from '@node-rs/argon2';
import type { Argon2Params } from '../../platform/config/load.js';

/**
 * Hashes `password` into a PHC string that records its own parameters.
 * @param password - the plain password (already NFKC-normalised where a policy applies).
 * @param params - the cost parameters.
 * @returns `$argon2id$v=19$m=…,t=…,p=…$salt$hash`.
 */
export function hashPassword(password: string, params: Argon2Params): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id, ...params });
}

/**
 * Verifies `password` against a PHC string. Malformed hashes verify as false.
 * @param phc - a stored hash.
 * @param password - the candidate.
 */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

/** How a candidate password matched a stored hash: `nfkc` (the normal case), `asTyped`, or not at all. */
export type PasswordMatch = 'nfkc' | 'asTyped' | false;

/**
 * Verifies a candidate in its NFKC form (NIST SP 800-63B §5.1.1.2; `identity/passwords/policy.ts`), and,
 * when that form differs from what was typed, also as typed: hashes stored before
 * docs/decisions/0011-passwords-and-reset.md (by `assent import`) hold the password as it was
 * written, so those users still sign in, and the caller then re-hashes the NFKC form. Whether the
 * second verification runs depends only on the candidate, never on the account, so an unknown
 * username still costs the same (ASVS 5.0 V6.3.8).
 * @param phc - a stored hash.
 * @param password - the candidate as sent.
 * @returns which form matched, or false.
 */
export async function verifyNormalised(phc: string, password: string): Promise<PasswordMatch> {
  const nfkc = password.normalize('NFKC');
  if (await verifyPassword(phc, nfkc)) return 'nfkc';
  if (nfkc !== password && (await verifyPassword(phc, password))) return 'asTyped';
  return false;
}

/**
 * Tells whether a stored hash is weaker than the configured parameters (or not argon2id), so that
 * a successful login re-hashes it (ASVS 5.0 V11.4.2, "upgrade on login").
 * @param phc - a stored hash.
 * @param params - the configured parameters.
 */
export function needsRehash(phc: string, params: Argon2Params): boolean {
  const match = /^\$argon2id\$v=\d+\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(phc);
  if (!match) return true;
  return (
    Number(match[1]) < params.memoryCost || Number(match[2]) < params.timeCost || Number(match[3]) < params.parallelism
  );
}
