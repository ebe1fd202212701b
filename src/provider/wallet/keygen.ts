/**
 * The verifier key Assent makes for an organisation that asks for one (`generateVerifierKey`,
 * docs/wallet.md "Wallet settings"): a P-256 key and a self-signed certificate. A wallet pins the
 * certificate by `x509_hash` (OpenID4VP 1.0 §5.9.3); it does not chain it to any authority.
 */
import { webcrypto } from 'node:crypto';
import { loadX509 } from '../../platform/crypto/x509.js';

/** Validity of a generated verifier certificate (days). */
export const GENERATED_VALIDITY_DAYS = 3 * 365;

/**
 * Generates a P-256 key and a self-signed certificate for it.
 * @param host - the public URL's host name, for the subject and a SAN dNSName.
 * @returns the certificate and the PKCS#8 private key, both PEM.
 */
export async function generateVerifierKey(host: string): Promise<{ certificatePem: string; privateKeyPem: string }> {
  const x509 = await loadX509();
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: webcrypto
      .getRandomValues(new Uint8Array(16))
      .reduce((s, b) => s + b.toString(16).padStart(2, '0'), '7'),
    name: `CN=${host.replace(/[,=+<>#;"\\]/g, '')} wallet verifier, O=Assent`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + GENERATED_VALIDITY_DAYS * 86_400_000),
    signingAlgorithm: alg,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: host }]),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const privateKeyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { certificatePem: cert.toString('pem'), privateKeyPem };
}
