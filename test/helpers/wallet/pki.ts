/**
 * The wallet tests' PKI (docs/wallet.md "Development and tests"), made fresh for each run with
 * `@peculiar/x509`: nothing is committed. A root CA with an issuer leaf and a status-list signer; a
 * rogue CA with its own issuer leaf; a self-signed and an expired issuer leaf; a verifier CA with a
 * verifier leaf.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 86_400_000;

/** A certificate with its key pair. */
export interface TestCert {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
  /** PEM of the certificate. */
  pem: string;
  /** Base64 DER: an `x5c` entry. */
  b64: string;
  /** Private key as JWK (for @sd-jwt signers) and PKCS#8 PEM (for the settings API). */
  privateJwk: JsonWebKey;
  privatePem: string;
}

let serial = 1;

async function finish(cert: x509.X509Certificate, keys: CryptoKeyPair): Promise<TestCert> {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return {
    cert,
    keys,
    pem: cert.toString('pem'),
    b64: cert.toString('base64'),
    privateJwk: (await webcrypto.subtle.exportKey('jwk', keys.privateKey)) as JsonWebKey,
    privatePem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`,
  };
}

const newKeys = async () => (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;

/** A self-signed CA (`ca`), or a self-signed leaf (`ca: false`). */
export async function selfSigned(name: string, ca = true): Promise<TestCert> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(ca, ca ? 1 : undefined, true),
      new x509.KeyUsagesExtension(
        ca ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature,
        true,
      ),
    ],
  });
  return finish(cert, keys);
}

/** A leaf issued by `issuer`: not a CA; SANs `uri`, `dns`, `ip` when given; `validDays` negative for an expired one. */
export async function leaf(
  name: string,
  issuer: TestCert,
  opts: { uri?: string; dns?: string; ip?: string; validDays?: number } = {},
): Promise<TestCert> {
  const keys = await newKeys();
  const days = opts.validDays ?? 365;
  const san = [
    ...(opts.uri ? [{ type: 'url' as const, value: opts.uri }] : []),
    ...(opts.dns ? [{ type: 'dns' as const, value: opts.dns }] : []),
    ...(opts.ip ? [{ type: 'ip' as const, value: opts.ip }] : []),
  ];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject: `CN=${name}`,
    issuer: issuer.cert.subject,
    notBefore: new Date(Date.now() - (days < 0 ? 30 : 1) * DAY),
    notAfter: new Date(Date.now() + days * DAY),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...(san.length > 0 ? [new x509.SubjectAlternativeNameExtension(san)] : []),
    ],
  });
  return finish(cert, keys);
}

/** The whole test PKI. */
export interface TestPki {
  root: TestCert;
  issuer: TestCert;
  statusSigner: TestCert;
  rogueRoot: TestCert;
  rogueIssuer: TestCert;
  rogueStatusSigner: TestCert;
  selfSignedIssuer: TestCert;
  expiredIssuer: TestCert;
  verifierRoot: TestCert;
  verifier: TestCert;
  /** A second organisation's issuer PKI (distinct issuers per organisation). */
  root2: TestCert;
  issuer2: TestCert;
}

/** Makes the PKI (about 12 P-256 keys). */
export async function createPki(): Promise<TestPki> {
  const root = await selfSigned('Test Root CA');
  const rogueRoot = await selfSigned('Rogue Root CA');
  const verifierRoot = await selfSigned('Test Verifier CA');
  const root2 = await selfSigned('Second Root CA');
  return {
    root,
    issuer: await leaf('Test Issuer', root, { uri: 'https://issuer.test' }),
    statusSigner: await leaf('Test Status Lists', root),
    rogueRoot,
    rogueIssuer: await leaf('Rogue Issuer', rogueRoot, { uri: 'https://issuer.test' }),
    rogueStatusSigner: await leaf('Rogue Status Lists', rogueRoot),
    selfSignedIssuer: await selfSigned('Self-signed Issuer', false),
    expiredIssuer: await leaf('Expired Issuer', root, { uri: 'https://issuer.test', validDays: -1 }),
    verifierRoot,
    verifier: await leaf('Test Verifier', verifierRoot, { dns: 'localhost' }),
    root2,
    issuer2: await leaf('Second Issuer', root2, { uri: 'https://issuer2.test' }),
  };
}
