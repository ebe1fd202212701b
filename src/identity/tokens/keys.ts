/**
 * The signing-key ring: ES256 keys whose private halves are sealed under the master key, the
 * active one signing, and every key whose tokens may still be alive published in the JWKS.
 *
 * Rules: RFC 7515 §4.1.4 (`kid`), RFC 7517 (JWK Set), docs/decisions/0002-signing-key-rotation.md ("old keys stay in
 * the JWKS until their tokens expire").
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, randomUUID } from 'node:crypto';
import type { Config } from '../../platform/config/load.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Executor } from '../../platform/db/open.js';
import * as store from './keys-store.js';

/**
 * The longest lifetime of any token (seconds): how long a retired signing key stays published.
 * @param config - the configuration.
 */
export function maxTokenTtl(config: Config): number {
  return Math.max(config.accessTokenTtl, config.refreshTokenTtl, config.apiKeyTtl);
}

/** The one signing algorithm; pinned on verification too (RFC 8725 §3.1). */
export const ALG = 'ES256';

const SEAL_PURPOSE = 'signing-key';
/** The NOTIFY channel on which a rotation is announced to every serving process. */
export const ROTATION_CHANNEL = 'assent_signing_keys';
/** How often a process re-reads the ring to pick up a rotation made elsewhere (milliseconds). */
const RELOAD_MS = 30_000;

/** A published public key (RFC 7517 §4, EC P-256). */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: string;
  use: string;
}

/** A key ready to sign. */
export interface ActiveKey {
  kid: string;
  /** The private key, PKCS #8 PEM. */
  privatePem: string;
}

function newKeyRow(master: MasterKey) {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = randomUUID();
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const publicJwk = { kty, crv, x, y, kid, alg: ALG, use: 'sig' };
  const privateJwkSealed = master.seal(JSON.stringify(privateKey.export({ format: 'jwk' })), SEAL_PURPOSE);
  return { kid, publicJwk, privateJwkSealed };
}

/** The PEM of a JWK: SPKI for a public key, PKCS #8 for a private one. */
function pemOf(jwk: JsonWebKey, half: 'public' | 'private'): string {
  const key =
    half === 'public' ? createPublicKey({ key: jwk, format: 'jwk' }) : createPrivateKey({ key: jwk, format: 'jwk' });
  return key.export(half === 'public' ? { type: 'spki', format: 'pem' } : { type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * Creates a signing key and retires every other one; retired keys stay published for
 * `maxTokenTtl` seconds, the longest lifetime of any token they signed.
 *
 * @param db - database or transaction.
 * @param master - the master key that seals the private key.
 * @param maxTokenTtl - longest token lifetime (seconds).
 * @returns the new key's `kid`.
 * @throws {SealError} when `master` cannot open the current key: a key sealed under a different
 *   master key would be unusable by the servers.
 */
export async function rotateSigningKey(db: Executor, master: MasterKey, maxTokenTtl: number): Promise<string> {
  for (const current of await store.listPublished(db))
    if (!current.retiredAt) master.open(current.privateJwkSealed, SEAL_PURPOSE);
  const row = newKeyRow(master);
  await store.retireActiveKeys(db, maxTokenTtl);
  await store.insertKey(db, row);
  await store.notifyRotation(db, row.kid);
  return row.kid;
}

/** The in-process view of the key ring, with periodic reload. */
export class KeyRing {
  private active: ActiveKey | undefined;
  private verifiers = new Map<string, string>();
  private publicJwks: PublicJwk[] = [];
  private loadedAt = 0;
  private loading: Promise<void> | undefined;

  /**
   * @param db - the database.
   * @param master - the master key.
   * @param maxTokenTtl - longest token lifetime (seconds), used when rotating.
   */
  constructor(
    private readonly db: Executor,
    private readonly master: MasterKey,
    private readonly maxTokenTtl: number,
  ) {}

  /**
   * Loads the ring, creating the first key when the store has none.
   * @throws {SealError} when the master key cannot open the stored keys.
   */
  async init(): Promise<void> {
    if ((await store.countUnretired(this.db)) === 0) await rotateSigningKey(this.db, this.master, this.maxTokenTtl);
    await this.reload();
  }

  /** Re-reads the ring now (after a rotation made in this process). */
  async reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const rows = await store.listPublished(this.db);
        const verifiers = new Map<string, string>();
        let active: ActiveKey | undefined;
        for (const row of rows) {
          verifiers.set(row.kid, this.verifiers.get(row.kid) ?? pemOf(row.publicJwk as JsonWebKey, 'public'));
          if (!row.retiredAt && !active) {
            const privatePem =
              this.active?.kid === row.kid
                ? this.active.privatePem
                : pemOf(JSON.parse(this.master.open(row.privateJwkSealed, SEAL_PURPOSE)), 'private');
            active = { kid: row.kid, privatePem };
          }
        }
        this.verifiers = verifiers;
        this.publicJwks = rows.map((r) => r.publicJwk as PublicJwk);
        if (active) this.active = active;
        this.loadedAt = Date.now();
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** The key to sign with; re-reads the ring when it is older than 30 s. */
  async signingKey(): Promise<ActiveKey> {
    if (!this.active || Date.now() - this.loadedAt > RELOAD_MS) await this.reload();
    if (!this.active) throw new Error('no active signing key');
    return this.active;
  }

  /**
   * The public key for `kid` (SPKI PEM), or undefined. An unknown `kid` triggers one reload at most
   * every second, so a rotation elsewhere is seen at once while junk `kid`s cannot hammer the database.
   */
  async verificationKey(kid: string): Promise<string | undefined> {
    const key = this.verifiers.get(kid);
    if (key || Date.now() - this.loadedAt < 1000) return key;
    await this.reload();
    return this.verifiers.get(kid);
  }

  /**
   * The private JWKs (RFC 7517 §4, EC P-256, ES256) of every published key, the active one first:
   * for the organisations' OpenID providers (src/provider/openid/provider.ts), which sign ID tokens with the
   * first and publish all of them. Opens every sealed private half, so the caller caches the answer
   * by `kid` list (see `jwks`).
   * @throws {SealError} when the master key cannot open a stored key.
   */
  async privateJwks(): Promise<(PublicJwk & { d: string })[]> {
    const rows = await store.listPublished(this.db);
    return rows.map((row) => {
      const { d } = JSON.parse(this.master.open(row.privateJwkSealed, SEAL_PURPOSE)) as { d: string };
      return { ...(row.publicJwk as PublicJwk), d };
    });
  }

  /** The JWK Set (RFC 7517 §5) of every published key. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    if (Date.now() - this.loadedAt > RELOAD_MS) await this.reload();
    return { keys: this.publicJwks };
  }
}
