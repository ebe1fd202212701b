/**
 * PEM and X.509 helpers for the wallet settings and the verifier's client identifier (RFC 7468;
 * OpenID4VP 1.0 §5.9.3 `x509_hash`).
 */
import { createHash, X509Certificate } from 'node:crypto';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of a PEM text, in order.
 * @param pem - one or more `CERTIFICATE` blocks.
 * @returns the parsed certificates; empty when there is none.
 * @throws {Error} when a block is not a certificate.
 */
export function parseCertificates(pem: string): X509Certificate[] {
  return (pem.match(CERT_BLOCK) ?? []).map((block) => new X509Certificate(block));
}

/** The base64 DER of a certificate: an `x5c` entry (RFC 7515 §4.1.6). */
export function x5cEntry(cert: X509Certificate): string {
  return cert.raw.toString('base64');
}

/**
 * The `x509_hash` client identifier of a verifier: base64url SHA-256 of the leaf's DER
 * (OpenID4VP 1.0 §5.9.3).
 */
export function x509HashClientId(leaf: X509Certificate): string {
  return `x509_hash:${createHash('sha256').update(leaf.raw).digest('base64url')}`;
}

/** True when a certificate names itself as issuer and its own key verifies its signature. */
export function isSelfSigned(cert: X509Certificate): boolean {
  return cert.checkIssued(cert) && cert.verify(cert.publicKey);
}

/** True when `now` is within the certificate's validity period. */
export function isCurrent(cert: X509Certificate, now: Date): boolean {
  return new Date(cert.validFrom) <= now && now <= new Date(cert.validTo);
}
