/**
 * `@peculiar/x509`, which makes the self-signed certificates of Assent's own keys (the SAML SP keys of
 * `federation/saml/sp-keys.ts`, the wallet verifier key of `provider/wallet/keygen.ts`), with Node.js's Web Crypto as
 * its provider.
 */
import { webcrypto } from 'node:crypto';

/** `@peculiar/x509`'s module, as `import('@peculiar/x509')` resolves it. */
export type X509Lib = typeof import('@peculiar/x509');

let x509Lib: Promise<X509Lib> | undefined;

/**
 * The library, loaded with the first certificate made, not at start-up: with reflect-metadata and its ASN.1 stack it
 * takes about 180 ms to load, which a process that makes no certificate (`assent import`, `assent migrate`) need not
 * spend; then the same module.
 */
export function loadX509(): Promise<X509Lib> {
  x509Lib ??= (async () => {
    // 2.x throws at its own import unless the Reflect polyfill is loaded first (tsyringe; decision 0015).
    await import('reflect-metadata');
    const lib = await import('@peculiar/x509');
    lib.cryptoProvider.set(webcrypto as unknown as Crypto);
    return lib;
  })();
  return x509Lib;
}
