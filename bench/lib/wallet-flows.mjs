/**
 * The HTTP flows of the wallet benchmark, as a browser, a wallet and a relying party do them
 * (docs/wallet.md; docs/api.md "Authorization endpoint"): set-up (the relying party `bench-rp` and the wallet settings through
 * the admin API), a transaction started through the real `/auth` → page flow with the request
 * object fetched, and a whole sign-in (auth → page → wallet → status → complete → code → token).
 * 127.0.0.1 only; every unexpected answer throws with its status.
 */
import { createHash, randomBytes } from 'node:crypto';
import { call } from './consent-http.mjs';
import { assertLocal } from './util.mjs';
import { requestPayload, requestUriOf, responseBody } from './wallet-holder.mjs';

export const CLIENT_ID = 'bench-rp';
/** Never fetched: the flow stops at the redirect that carries the code. */
export const REDIRECT_URI = 'http://127.0.0.1:9/cb';

/**
 * Registers the relying party and puts the organisation's wallet settings (generated verifier key,
 * the bench root as trusted issuer; the defaults otherwise: haip, direct_post.jwt).
 * @returns the issuer URL and the client's secret.
 */
export async function setUp(base, orgId, token, rootPem) {
  const client = await call(base, 'POST', `/v1/organizations/${orgId}/oidc-clients`, {
    token,
    body: { clientId: CLIENT_ID, name: 'Bench shop', redirectUris: [REDIRECT_URI] },
    expect: 201,
  });
  await call(base, 'PUT', `/v1/organizations/${orgId}/wallet`, {
    token,
    body: { generateVerifierKey: true, trustedIssuerCertificates: [rootPem] },
    expect: 200,
  });
  return { issuer: `${base}/v3/service/extension/oidc/${orgId}`, secret: client.json.clientSecret };
}

/** A browser's cookies. */
class Jar {
  cookies = new Map();

  async get(url, init = {}) {
    assertLocal(url, 'flow URL');
    const headers = { ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    const body = await res.text();
    const location = res.headers.get('location');
    return { status: res.status, body, location: location ? new URL(location, url).href : null };
  }
}

function expectStatus(res, status, what) {
  if (res.status !== status)
    throw new Error(`${what}: expected ${status}, got ${res.status} ${res.body.slice(0, 200)}`);
  return res;
}

const attr = (html, name) =>
  new RegExp(`${name}="([^"]*)"`)
    .exec(html)?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"');

/**
 * Starts a transaction as a browser does: `/auth` with PKCE, state and nonce, the 303 to the wallet
 * page, the page (its deep link), then, as the wallet, the request object (fetched once).
 * @returns the browser's jar, the PKCE verifier, the state, the status URL and the request payload.
 */
export async function startTransaction(issuer) {
  const jar = new Jar();
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const params = new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid',
    state,
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const auth = expectStatus(await jar.get(`${issuer}/auth?${params}`), 303, '/auth');
  const page = expectStatus(await jar.get(auth.location), 200, 'wallet page');
  const deepLink = attr(page.body, 'data-deeplink');
  const statusUrl = new URL(attr(page.body, 'data-status-url'), auth.location).href;
  const object = await fetch(requestUriOf(deepLink));
  if (object.status !== 200) throw new Error(`request object: ${object.status}`);
  return { jar, verifier, state, statusUrl, request: requestPayload(await object.text()) };
}

/** Posts a prepared wallet response; throws unless it is verified (200 with `redirect_uri`). */
export async function postResponse(request, body) {
  const res = await fetch(request.response_uri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('redirect_uri')) throw new Error(`response: ${res.status} ${text}`);
}

/**
 * One whole cross-device sign-in: start, the wallet answers, the page's status poll names `next`,
 * the browser follows it to the relying party's redirect with the code, which the relying party
 * redeems (client_secret_basic, PKCE).
 * @returns the ID token.
 */
export async function signIn(rp, credential, holderPrivate) {
  const tx = await startTransaction(rp.issuer);
  await postResponse(tx.request, await responseBody(tx.request, credential, holderPrivate));
  const status = expectStatus(await tx.jar.get(tx.statusUrl), 200, 'status');
  const next = JSON.parse(status.body).next;
  if (!next) throw new Error(`status without next: ${status.body}`);
  let url = new URL(next, tx.statusUrl).href;
  for (let i = 0; !url.startsWith(REDIRECT_URI); i++) {
    if (i === 5) throw new Error('too many redirects before the relying party');
    url = expectStatus(await tx.jar.get(url), 303, 'completion').location;
  }
  const callback = new URL(url);
  if (callback.searchParams.get('state') !== tx.state) throw new Error(`callback state differs: ${url}`);
  const token = await fetch(`${rp.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${rp.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code'),
      redirect_uri: REDIRECT_URI,
      code_verifier: tx.verifier,
    }),
  });
  const json = await token.json();
  if (token.status !== 200 || !json.id_token) throw new Error(`token: ${token.status} ${JSON.stringify(json)}`);
  return json.id_token;
}
