/**
 * The master key and envelope sealing of secrets at rest (signing keys, the SAML SP keys, the
 * external IdP's client secret, the wallet verifier's key, the push credentials, kept IdP tokens and
 * sessions). ASVS 5.0 V11.2 / V13.3: secrets at rest are encrypted with an approved AEAD.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Thrown when a sealed value cannot be opened: wrong master key, or tampered ciphertext. */
export class SealError extends Error {
  override name = 'SealError';
}

/** Current envelope version; kept in each sealed string so that the master key can rotate. */
const VERSION = 'v1';

/** The master key, as used by `seal`/`open`. */
export interface MasterKey {
  /**
   * Encrypts `plaintext` with AES-256-GCM under a key derived (HKDF-SHA256) for `purpose`.
   * @param plaintext - UTF-8 text.
   * @param purpose - a label binding the ciphertext to its use, e.g. `signing-key`; also the AAD.
   * @returns `v1.<iv>.<ciphertext>.<tag>`, base64url parts.
   */
  seal(plaintext: string, purpose: string): string;
  /**
   * Decrypts a value made by `seal` with the same `purpose`.
   * @throws {SealError} when the key, purpose or ciphertext do not match.
   */
  open(sealed: string, purpose: string): string;
  /**
   * A 32-byte key derived (HKDF-SHA256, RFC 5869) for `purpose`, for a MAC that only Assent checks.
   * @param purpose - a label no `seal` purpose uses, e.g. `refresh-token-mac`.
   * @returns 32 bytes; the same for the same master key and purpose.
   */
  derivedKey(purpose: string): Buffer;
}

function derive(ikm: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, 'assent', `assent ${VERSION} ${purpose}`, 32));
}

/**
 * Builds a MasterKey from raw key material.
 * @param material - at least 32 bytes of secret material (`ASSENT_SECRET` as UTF-8, or the key file).
 */
export function masterKeyFrom(material: Buffer): MasterKey {
  const keys = new Map<string, Buffer>();
  const keyFor = (purpose: string) => {
    let key = keys.get(purpose);
    if (!key) {
      key = derive(material, purpose);
      keys.set(purpose, key);
    }
    return key;
  };
  return {
    derivedKey: (purpose) => Buffer.from(keyFor(purpose)),
    seal(plaintext, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv);
      cipher.setAAD(Buffer.from(purpose));
      const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        VERSION,
        iv.toString('base64url'),
        ct.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
      ].join('.');
    },
    open(sealed, purpose) {
      const [version, iv, ct, tag] = sealed.split('.');
      if (version !== VERSION || !iv || ct === undefined || !tag) throw new SealError('unknown envelope format');
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose), Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(purpose));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError('cannot decrypt: the master key differs from the one that sealed this value');
      }
    },
  };
}

/**
 * Loads the master key: `ASSENT_SECRET` when given, otherwise the embedded store's key file
 * `<dataDir>/master.key`, generated (32 random bytes, mode 0600) on first use.
 *
 * @param secret - `ASSENT_SECRET`, or undefined.
 * @param dataDir - the data directory (absolute path), used only without `secret`.
 */
export function loadMasterKey(secret: string | undefined, dataDir: string): MasterKey {
  if (secret) return masterKeyFrom(Buffer.from(secret, 'utf8'));
  const file = path.join(dataDir, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // 0600 and exclusive create: the key must be readable by the service account only.
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  return masterKeyFrom(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
}
