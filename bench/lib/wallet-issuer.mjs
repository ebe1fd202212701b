/**
 * The wallet benchmark's issuer side (docs/benchmarks.md, "Wallet benchmark"), made fresh for each
 * run: a root CA and an issuer leaf (P-256, @peculiar/x509), a holder key, one `dc+sd-jwt`
 * credential with three disclosable claims and a status-list reference (@sd-jwt/sd-jwt-vc 0.19),
 * and a status-list server on 127.0.0.1 whose token carries `ttl` (the verifier may reuse it,
 * draft-ietf-oauth-status-list §13.7), as a real issuer's would.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import http from 'node:http';
import * as x509 from '@peculiar/x509';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { importJWK, SignJWT } from 'jose';
import { onCleanup } from './cleanup.mjs';
import { HOST } from './config.mjs';

x509.cryptoProvider.set(webcrypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 86_400_000;
export const ISSUER = 'https://issuer.bench';
export const VCT = 'io.igrant.authenticator';
export const CLAIMS = { email_address: 'bench.wallet@example.test', given_name: 'Bench', family_name: 'Wallet' };

const newKeys = () => webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
const jwkOf = (key) => webcrypto.subtle.exportKey('jwk', key);

/** A root CA and an issuer leaf (which also signs the status list). */
export async function createPki() {
  const rootKeys = await newKeys();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Bench Root CA',
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    signingAlgorithm: ALG,
    keys: rootKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const leafKeys = await newKeys();
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=Bench Issuer',
    issuer: root.subject,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 30 * DAY),
    signingAlgorithm: ALG,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([{ type: 'url', value: ISSUER }]),
    ],
  });
  return {
    rootPem: root.toString('pem'),
    issuer: { b64: leaf.toString('base64'), privateJwk: await jwkOf(leafKeys.privateKey) },
  };
}

/** The claims of individual `i` (its own e-mail address: the stable claim). */
export const claimsOf = (i) => ({ ...CLAIMS, email_address: `bench.wallet.${i}@example.test` });

/** A holder's P-256 key: `cnf.jwk` and the KB-JWT signer. */
export async function holderKey() {
  const keys = await newKeys();
  return { publicJwk: await jwkOf(keys.publicKey), privateJwk: await jwkOf(keys.privateKey) };
}

/**
 * Issues a credential.
 * @param status - `{idx, uri}` of its status-list entry.
 * @param claims - the disclosable claims (default: one individual's e-mail and names).
 * @returns the compact SD-JWT, ending with `~`.
 */
export async function issue(pki, holder, status, claims = CLAIMS) {
  const now = Math.floor(Date.now() / 1000);
  const sdjwt = new SDJwtVcInstance({
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
    signAlg: 'ES256',
    signer: await ES256.getSigner(pki.issuer.privateJwk),
  });
  const payload = {
    iss: ISSUER,
    vct: VCT,
    iat: now - 10,
    exp: now + 3600,
    cnf: { jwk: holder.publicJwk },
    status: { status_list: status },
    ...claims,
  };
  return sdjwt.issue(payload, { _sd: Object.keys(claims) }, { header: { x5c: [pki.issuer.b64] } });
}

/**
 * Starts the status-list server on 127.0.0.1 (one list of 16 valid entries at `/lists/bench`,
 * `ttl` 300 s) and registers its stop.
 * @returns its list URI and the number of fetches so far.
 */
export async function startStatusServer(pki) {
  let fetches = 0;
  let uri = '';
  const key = await importJWK(pki.issuer.privateJwk, 'ES256');
  const server = http.createServer(async (req, res) => {
    if (req.url !== '/lists/bench') return res.writeHead(404).end();
    fetches++;
    const { header, payload } = createHeaderAndPayload(
      new StatusList(new Array(16).fill(0), 2),
      { iss: ISSUER, sub: uri, iat: Math.floor(Date.now() / 1000), ttl: 300 },
      { alg: 'ES256', typ: 'statuslist+jwt', x5c: [pki.issuer.b64] },
    );
    const jwt = await new SignJWT(payload).setProtectedHeader(header).sign(key);
    res.writeHead(200, { 'content-type': 'application/statuslist+jwt' }).end(jwt);
  });
  await new Promise((resolve) => server.listen(0, HOST, resolve));
  uri = `http://${HOST}:${server.address().port}/lists/bench`;
  onCleanup(() => new Promise((resolve) => server.close(resolve)));
  return { uri, fetches: () => fetches };
}
