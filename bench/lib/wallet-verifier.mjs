/**
 * The verifier's own work on one `direct_post.jwt` response, without SQL and HTTP: what
 * src/provider/wallet/receive.ts does per response (docs/wallet.md "Verification steps", 1–7) between
 * reading the transaction and writing its result, done by the same compiled code (dist/):
 *   1–3. `openResponse` (response.ts): the JWE header, the transaction's sealed private JWK opened
 *        (AES-GCM under the master key) and imported (a fresh key per transaction), the JWE
 *        decrypted (ECDH-ES + A256GCM), `state` matched;
 *   5.   the response parameters checked with `@openid4vc/openid4vp` (as receive.ts `checkParameters`);
 *   6–7. `verifyVpToken` (presentations.ts → credential.ts `verifyPresentation`): x5c chain (memoised
 *        as in the server), disclosures, the SD-JWT and KB-JWT signatures, the status list (fetched
 *        from the loopback status server, its token kept in one `StatusListCache` as in the server),
 *        the DCQL query.
 * Used by (a2), the in-process loop (`verifierRate`), and by the floor server (wallet-floor-server.mjs).
 * Cases (one transaction each) are made by `makeCases` from the settings of a real transaction.
 */
import { randomBytes, webcrypto } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  parseOpenid4VpAuthorizationResponsePayload,
  validateOpenid4vpAuthorizationResponsePayload,
} from '@openid4vc/openid4vp';
import { ROOT } from './config.mjs';
import { log, r1 } from './util.mjs';
import { responseBody } from './wallet-holder.mjs';

const r3 = (x) => Math.round(x * 1000) / 1000;
const dist = (file) => import(pathToFileURL(path.join(ROOT, 'dist', file)).href);

const rand = () => randomBytes(16).toString('base64url');

/**
 * Loads the compiled verifier and builds its per-process state.
 * @param shared - `{ masterHex, settings, request, allowHttpHosts }` (see `sharedOf`).
 * @returns `verify(body, find)`: resolves to the verified credentials, throws a PresentationError.
 */
export async function loadVerifier(shared) {
  const { openResponse } = await dist('provider/wallet/response.js');
  const { verifyVpToken } = await dist('provider/wallet/presentations.js');
  const { StatusListCache } = await dist('provider/wallet/status.js');
  const { anchorCertificates } = await dist('provider/wallet/trust.js');
  const { masterKeyFrom } = await dist('platform/crypto/master-key.js');
  const master = masterKeyFrom(Buffer.from(shared.masterHex, 'hex'));
  const statusCache = new StatusListCache();
  const { settings, request } = shared;
  return async function verify(body, find) {
    const now = new Date();
    const form = Object.fromEntries(new URLSearchParams(body));
    const { tx, payload } = await openResponse(form, find, master, now);
    const requestPayload = { ...request, nonce: tx.nonce, state: tx.vpState };
    validateOpenid4vpAuthorizationResponsePayload({
      authorizationRequestPayload: requestPayload,
      authorizationResponsePayload: parseOpenid4VpAuthorizationResponsePayload(payload),
    });
    return verifyVpToken(payload.vp_token, settings.dcqlQuery, {
      anchors: anchorCertificates(settings.trustedIssuerCertificates),
      clientId: String(request.client_id),
      nonce: tx.nonce,
      outbound: { allowHttpHosts: shared.allowHttpHosts },
      statusCache,
      now,
    });
  };
}

/**
 * What the verifier needs besides each transaction: a master key, the settings snapshot and the
 * request object of a real transaction (its `dcql_query`, `client_id`, response mode).
 */
export function sharedOf(request, rootPem) {
  return {
    masterHex: randomBytes(32).toString('hex'),
    settings: {
      responseEncryption: request.client_metadata.encrypted_response_enc_values_supported,
      dcqlQuery: request.dcql_query,
      trustedIssuerCertificates: [rootPem],
    },
    request,
    allowHttpHosts: ['127.0.0.1'],
  };
}

/**
 * Makes `count` transactions, each with its own P-256 key (sealed as the server seals it), nonce and
 * state, and the wallet's response to each (the credentials in turn).
 * @returns `{ rows, bodies }`: rows as TxRow-like objects (id = the key's `kid`), bodies as form bodies.
 */
export async function makeCases(shared, credentials, holderPrivate, count) {
  const { masterKeyFrom } = await dist('platform/crypto/master-key.js');
  const { ENC_KEY_PURPOSE } = await dist('provider/wallet/response.js');
  const master = masterKeyFrom(Buffer.from(shared.masterHex, 'hex'));
  const rows = [];
  const bodies = [];
  for (let i = 0; i < count; i++) {
    const pair = await webcrypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']);
    const priv = await webcrypto.subtle.exportKey('jwk', pair.privateKey);
    const kid = rand();
    const jwk = { kty: priv.kty, crv: priv.crv, x: priv.x, y: priv.y, kid };
    const row = {
      id: kid,
      encKid: kid,
      encKeySealed: master.seal(
        JSON.stringify({ kty: priv.kty, crv: priv.crv, x: priv.x, y: priv.y, d: priv.d }),
        ENC_KEY_PURPOSE,
      ),
      vpState: rand(),
      nonce: rand(),
      status: 'request_fetched',
      expiresAt: new Date(Date.now() + 3600_000),
      settings: shared.settings,
    };
    const request = {
      ...shared.request,
      nonce: row.nonce,
      state: row.vpState,
      client_metadata: { ...shared.request.client_metadata, jwks: { keys: [jwk] } },
    };
    rows.push(row);
    bodies.push(await responseBody(request, credentials[i % credentials.length], holderPrivate));
  }
  return { rows, bodies };
}

/**
 * (a2): the verifier's work on `count` prepared responses, one after another in this process.
 * @returns presentations per second and CPU ms per presentation.
 */
export async function verifierRate(shared, credentials, holderPrivate, count) {
  const verify = await loadVerifier(shared);
  const warm = await makeCases(shared, credentials, holderPrivate, 100);
  const cases = await makeCases(shared, credentials, holderPrivate, count);
  const run = async ({ rows, bodies }) => {
    for (let i = 0; i < rows.length; i++) await verify(bodies[i], async () => rows[i]);
  };
  await run(warm);
  log(`verifier: ${count} responses, in process (dist/wallet: openResponse + verifyVpToken)`);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await run(cases);
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000 / count;
  log(`verifier: ${r1(count / seconds)} presentations/s, ${cpuMs.toFixed(3)} ms CPU each`);
  return { count, seconds: r1(seconds), perSecond: r1(count / seconds), cpuMsPerPresentation: r3(cpuMs) };
}
