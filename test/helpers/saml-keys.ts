/**
 * Test key pairs for SAML: an RSA 2048 key and a self-signed certificate, made in-process by the
 * same code as Assent's SP keys (no openssl).
 */
import { generateSpKey, type SpKey } from '../../src/federation/saml/sp-keys.js';

/** A key pair: PKCS #8 PEM private key and PEM certificate. */
export type TestKeyPair = SpKey;

/** Makes a fresh RSA key pair and certificate with the common name `cn`. */
export function testKeyPair(cn: string): Promise<TestKeyPair> {
  return generateSpKey(cn);
}
