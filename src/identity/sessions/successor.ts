/**
 * The answer of a refresh-token rotation, kept sealed for the reuse grace period (docs/identity.md
 * "Sessions"; docs/api.md "Parallel refreshes"): browser dashboards refresh from several requests at
 * once with one refresh token, and within `ASSENT_REFRESH_REUSE_GRACE_SECONDS` the later ones get
 * the same successor tokens instead of revoking the session (RFC 9700 §4.14.2 still applies after it).
 */
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { TokenBody } from './schemas.js';

/** HKDF purpose (and AAD) of the sealed successor tokens; no other sealed value uses it. */
const SUCCESSOR_PURPOSE = 'refresh-successor';

/**
 * Seals a rotation's answer for the grace period, or null when the period is 0 (nothing is kept).
 * The tokens are live credentials: at rest they are AES-256-GCM under the master key, never in
 * clear, and only until the grace period ends or the successor is used (ASVS 5.0 V13.3.1).
 * @param master - the master key.
 * @param body - the Token body answered to the rotation.
 * @param graceSeconds - `ASSENT_REFRESH_REUSE_GRACE_SECONDS` (seconds).
 */
export function sealSuccessor(master: MasterKey, body: TokenBody, graceSeconds: number): string | null {
  return graceSeconds > 0 ? master.seal(JSON.stringify(body), SUCCESSOR_PURPOSE) : null;
}

/**
 * Opens a sealed rotation answer.
 * @param master - the master key.
 * @param sealed - made by `sealSuccessor`.
 * @returns the Token body, as first answered.
 * @throws {SealError} when it was sealed under another master key or tampered with.
 */
export function openSuccessor(master: MasterKey, sealed: string): TokenBody {
  return JSON.parse(master.open(sealed, SUCCESSOR_PURPOSE)) as TokenBody;
}
