/**
 * (a) of the wallet benchmark: the raw rate of the cryptography of one presentation, done in a loop
 * in this process (one thread) by the libraries the verifier uses: the JWE decryption (jose
 * `compactDecrypt`, ECDH-ES P-256 + A256GCM), two ES256 verifications with node:crypto (the issuer
 * signature and the KB-JWT, as src/provider/wallet/credential.ts does them) and the SHA-256 of each
 * disclosure. Keys are imported once: key handling is part of what the pipeline must amortise.
 */
import { createHash, createPublicKey, verify, webcrypto, X509Certificate } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, importJWK, SignJWT } from 'jose';
import { log, r1 } from './util.mjs';

const r3 = (x) => Math.round(x * 1000) / 1000;

const sha256b64 = (s) => createHash('sha256').update(s, 'ascii').digest('base64url');

/**
 * Prepares one presentation like the pipeline's (the same credential, a KB-JWT) and a JWE of its
 * response to a local P-256 key.
 */
async function prepare(credential, holder) {
  const kb = await new SignJWT({
    iat: Math.floor(Date.now() / 1000),
    aud: 'x509_hash:bench',
    nonce: 'n',
    sd_hash: sha256b64(credential),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'kb+jwt' })
    .sign(await importJWK(holder.privateJwk, 'ES256'));
  const presentation = `${credential}${kb}`;
  const pair = await webcrypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
  const encPublic = await webcrypto.subtle.exportKey('jwk', pair.publicKey);
  const params = { vp_token: { authenticator: [presentation] }, state: 'x'.repeat(43) };
  const jwe = await new CompactEncrypt(Buffer.from(JSON.stringify(params)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', kid: 'k' })
    .encrypt(await importJWK({ ...encPublic, alg: undefined, key_ops: undefined }, 'ECDH-ES'));
  const parts = presentation.split('~');
  const split = (jwt) => {
    const dot = jwt.lastIndexOf('.');
    return { data: Buffer.from(jwt.slice(0, dot)), sig: Buffer.from(jwt.slice(dot + 1), 'base64url') };
  };
  const issuerHeader = JSON.parse(Buffer.from(parts[0].split('.')[0], 'base64url').toString());
  return {
    jwe,
    decryptKey: pair.privateKey,
    issuerJwt: split(parts[0]),
    issuerKey: new X509Certificate(Buffer.from(issuerHeader.x5c[0], 'base64')).publicKey,
    kbJwt: split(parts[parts.length - 1]),
    kbKey: createPublicKey({ key: holder.publicJwk, format: 'jwk' }),
    disclosures: parts.slice(1, -1),
  };
}

/**
 * Runs the loop for `seconds`.
 * @returns presentations per second and the count.
 */
export async function rawRate(credential, holder, seconds) {
  const p = await prepare(credential, holder);
  const one = async () => {
    await compactDecrypt(p.jwe, p.decryptKey, {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const a = verify('sha256', p.issuerJwt.data, { key: p.issuerKey, dsaEncoding: 'ieee-p1363' }, p.issuerJwt.sig);
    const b = verify('sha256', p.kbJwt.data, { key: p.kbKey, dsaEncoding: 'ieee-p1363' }, p.kbJwt.sig);
    if (!a || !b) throw new Error('raw loop: a signature did not verify');
    for (const d of p.disclosures) sha256b64(d);
  };
  for (let i = 0; i < 200; i++) await one(); // warm-up
  log(`raw: ${seconds}s loop of JWE decrypt + 2 ES256 verify + ${p.disclosures.length} disclosure hashes`);
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  let count = 0;
  while (performance.now() < end) {
    await one();
    count++;
  }
  const perSecond = count / ((performance.now() - start) / 1000);
  const cpu = process.cpuUsage(cpu0);
  // CPU per presentation (ms): what the loop cost this process, whatever else ran on the machine.
  const cpuMs = (cpu.user + cpu.system) / 1000 / count;
  log(`raw:   ${r1(perSecond)} presentations/s, ${cpuMs.toFixed(3)} ms CPU each`);
  return {
    seconds,
    count,
    perSecond: r1(perSecond),
    cpuMsPerPresentation: r3(cpuMs),
    disclosures: p.disclosures.length,
  };
}
