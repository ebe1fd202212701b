/**
 * Assent's SAML SP key pairs (docs/federation.md "SAML 2.0"): RSA 2048 keys with self-signed
 * certificates, which sign AuthnRequests and LogoutRequests (rsa-sha256, SAML 2.0 Bindings
 * §3.4.4.1) and are published in the SP metadata. One is made per signing key of the ring
 * (docs/decisions/0002-signing-key-rotation.md), when first needed, so `assent keys rotate` rotates it
 * too; the metadata lists the certificates of every signing key still published, the current one
 * first, so an IdP that cached the metadata keeps verifying. The private key is sealed under the
 * master key. RSA, since SAML IdPs widely verify rsa-sha256 and few ECDSA.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { MasterKey } from '../../crypto/master-key.js';
import type { Db } from '../../db/open.js';
import type { KeyRing } from '../../identity/keys.js';
import * as store from './store.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

/** Purpose label of the sealed SP private key. */
const SEAL_PURPOSE = 'saml-sp-key';
/** Validity of an SP certificate (days); rotation normally replaces it long before. */
const VALIDITY_DAYS = 5 * 365;

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
 * Makes an RSA 2048 key and a self-signed certificate (rsa-sha256, digitalSignature).
 * @param subject - the certificate's common name.
 */
export async function generateSpKey(subject: string): Promise<SpKey> {
  const alg = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
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
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  return {
    certificate: cert.toString('pem'),
    privateKey: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
  };
}

/** The SP key pairs, following the signing-key ring. */
export class SpKeys {
  private cached: { kid: string; key: SpKey } | undefined;

  /**
   * @param keys - the signing-key ring whose rotation this follows.
   * @param host - the public URL's host name, for the certificate's subject.
   */
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly keys: KeyRing,
    private readonly host: string,
  ) {}

  /**
   * The key pair of the current signing key, made and stored when there is none yet (any replica
   * may; the first stored wins).
   * @throws {SealError} when the master key cannot open the stored private key.
   */
  async current(): Promise<SpKey> {
    const { kid } = await this.keys.signingKey();
    if (this.cached?.kid === kid) return this.cached.key;
    let [row] = await store.spKeys(this.db, [kid]);
    if (!row) {
      const made = await generateSpKey(`${this.host} SAML SP`);
      await store.insertSpKey(this.db, {
        signingKid: kid,
        certificate: made.certificate,
        privateKeySealed: this.master.seal(made.privateKey, SEAL_PURPOSE),
      });
      [row] = await store.spKeys(this.db, [kid]);
    }
    const key = { certificate: row!.certificate, privateKey: this.master.open(row!.privateKeySealed, SEAL_PURPOSE) };
    this.cached = { kid, key };
    return key;
  }

  /** The certificates to publish: the current one first, then those of the other signing keys still published. */
  async certificates(): Promise<string[]> {
    const current = (await this.current()).certificate;
    const kids = (await this.keys.jwks()).keys.map((k) => k.kid);
    const others = (await store.spKeys(this.db, kids)).map((r) => r.certificate).filter((c) => c !== current);
    return [current, ...others];
  }
}
