/**
 * Assent's SAML SP key pairs (docs/federation.md "SAML 2.0", "SP keys";
 * docs/decisions/0026-saml-sp-key-rollover.md): RSA 2048 keys with self-signed certificates, one
 * ring per use. Signing keys sign AuthnRequests and LogoutRequests (rsa-sha256, SAML 2.0 Bindings
 * §3.4.4.1); encryption keys decrypt the assertions an IdP encrypts to Assent (XML Encryption,
 * SAML 2.0 Core §2.3.4). Both are published in the SP metadata. A key is staged first (`assent
 * keys rotate`): published, not used, so that IdPs that pin certificates (Shibboleth, Keycloak,
 * ADFS) can add it; `assent keys activate-saml` then makes it sign; the one it replaces stays
 * published, and accepted for decryption, for `RETIRED_PUBLISHED_SECONDS`. The private keys are
 * sealed under the master key. RSA, since SAML IdPs widely verify rsa-sha256 and few ECDSA.
 */
import { randomUUID, webcrypto } from 'node:crypto';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import { loadX509 } from '../../platform/crypto/x509.js';
import type { Db, Executor } from '../../platform/db/open.js';
import type { SpKeyUse } from './store.js';
import * as store from './store.js';

/** Purpose label of the sealed SP private key. */
const SEAL_PURPOSE = 'saml-sp-key';
/** Validity of an SP certificate (days); rotation normally replaces it long before. */
const VALIDITY_DAYS = 5 * 365;
/**
 * How long a retired key stays published and accepted for decryption (seconds): 30 days, longer
 * than IdPs cache SP metadata (Shibboleth and Keycloak refresh it daily by default), so an IdP
 * that still encrypts to the old certificate keeps working until it has fetched the new one.
 */
export const RETIRED_PUBLISHED_SECONDS = 30 * 86_400;
/** The uses, each with its own ring. */
const USES: readonly SpKeyUse[] = ['signing', 'encryption'];

/** A key pair to sign with. */
export interface SpKey {
  /** PEM certificate. */
  certificate: string;
  /** PKCS #8 PEM. */
  privateKey: string;
}

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;

/**
 * Makes an RSA 2048 key and a self-signed certificate (rsa-sha256; key usage digitalSignature for
 * `signing`, keyEncipherment for `encryption`, RFC 5280 §4.2.1.3).
 * @param subject - the certificate's common name.
 */
export async function generateSpKey(subject: string, use: SpKeyUse = 'signing'): Promise<SpKey> {
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
      .toString('hex')
      .replace(/^./, '7'),
    name: `CN=${subject.replace(/[,=+<>#;"\\]/g, '')}, O=Assent`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + VALIDITY_DAYS * 86_400_000),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.KeyUsagesExtension(
        use === 'signing' ? x509.KeyUsageFlags.digitalSignature : x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
    ],
  });
  return {
    certificate: cert.toString('pem'),
    privateKey: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}

/** A new key pair of `use`, sealed, as stored. */
async function newRow(master: MasterKey, host: string, use: SpKeyUse) {
  const made = await generateSpKey(`${host} SAML SP${use === 'encryption' ? ' encryption' : ''}`, use);
  return {
    id: randomUUID(),
    use,
    certificate: made.certificate,
    privateKeySealed: master.seal(made.privateKey, SEAL_PURPOSE),
  };
}

/**
 * Stages the next key pair of each use (published in the SP metadata, not used yet), unless one is
 * staged already: what `assent keys rotate` does for SAML.
 * @param host - the public URL's host name, for the certificates' subjects.
 * @returns the uses for which a key was staged now.
 */
export async function stageSpKeys(db: Executor, master: MasterKey, host: string): Promise<SpKeyUse[]> {
  const staged: SpKeyUse[] = [];
  for (const use of USES) {
    if (await store.hasStagedSpKey(db, use)) continue;
    await store.insertSpKey(db, await newRow(master, host, use), false);
    staged.push(use);
  }
  return staged;
}

/**
 * Makes the staged key pairs active, retiring the ones they replace (still published, and accepted
 * for decryption, for `RETIRED_PUBLISHED_SECONDS`): `assent keys activate-saml`.
 * @returns the uses switched; empty when nothing was staged (nothing changes).
 */
export async function activateSpKeys(db: Db): Promise<SpKeyUse[]> {
  return db.transaction(async (tx) => {
    const switched: SpKeyUse[] = [];
    for (const use of USES) if (await store.activateStagedSpKey(tx, use)) switched.push(use);
    return switched;
  });
}

/** The SP key pairs as the server uses them; read from the store on each call, so a switch made by the CLI applies at once. */
export class SpKeys {
  private readonly opened = new Map<string, string>();

  /**
   * @param host - the public URL's host name, for the certificates' subjects.
   */
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly host: string,
  ) {}

  private open(row: store.SpKeyRow): SpKey {
    let privateKey = this.opened.get(row.id);
    if (!privateKey) {
      privateKey = this.master.open(row.privateKeySealed, SEAL_PURPOSE);
      this.opened.set(row.id, privateKey);
    }
    return { certificate: row.certificate, privateKey };
  }

  /** The published rows of `use`, the active one first; makes and stores an active one when there is none. */
  private async published(use: SpKeyUse): Promise<store.SpKeyRow[]> {
    let rows = await store.publishedSpKeys(this.db, use, RETIRED_PUBLISHED_SECONDS);
    if (!rows[0]?.activatedAt || rows[0].retiredAt) {
      // Any replica may make the first one; the unique index keeps the first stored.
      await store.insertSpKey(this.db, await newRow(this.master, this.host, use), true);
      rows = await store.publishedSpKeys(this.db, use, RETIRED_PUBLISHED_SECONDS);
    }
    return rows;
  }

  /**
   * The active key pair of `use` (signing by default).
   * @throws {SealError} when the master key cannot open the stored private key.
   */
  async current(use: SpKeyUse = 'signing'): Promise<SpKey> {
    return this.open((await this.published(use))[0]!);
  }

  /** The certificates of `use` to publish: the active one first, then the staged one, then the retired ones still published. */
  async certificates(use: SpKeyUse = 'signing'): Promise<string[]> {
    return (await this.published(use)).map((r) => r.certificate);
  }

  /**
   * The private keys (PKCS #8 PEM) an encrypted assertion may be encrypted to: every published
   * encryption key (active, staged, retired within the overlap), the active one first.
   * @throws {SealError} when the master key cannot open a stored private key.
   */
  async decryptionKeys(): Promise<string[]> {
    return (await this.published('encryption')).map((r) => this.open(r).privateKey);
  }
}
