/**
 * The whole authorization code flow at an organisation's OpenID provider with a stock
 * `openid-client` relying party (docs/api.md "Authorization endpoint"; docs/wallet.md "The OpenID provider", "The sign-in
 * page"; RFC 6749 §4.1.2 for single-use codes): a confidential client (client_secret_basic,
 * client_secret_post) and a public one with PKCE S256, the ID token checked against the provider's
 * JWKS, userinfo, single-use codes, and RP-initiated logout. The test wallet (test/helpers/wallet/)
 * answers the page's request; the real verifier (src/provider/wallet/) signs the credential's individual in.
 */

import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssent, type TestAssent } from './helpers/assent.js';
import {
  Browser,
  WALLET_CLAIMS as CLAIMS,
  fetchWithJar,
  followToRp,
  type ProviderWorld,
  providerWorld,
  RP_CALLBACK,
  RP_LOGGED_OUT,
  type TestOrg,
} from './helpers/provider.js';
import { authorizationRequest } from './helpers/wallet/flow.js';

let s: TestAssent;
let w: ProviderWorld;
const insecure = { execute: [oidc.allowInsecureRequests] };

beforeAll(async () => {
  s = await startAssent();
  w = await providerWorld(s);
}, 60_000);
afterAll(() => s?.stop());

/** A stock relying party's configuration for `shop` (confidential) or `app` (public). */
async function rp(org: TestOrg, kind: 'basic' | 'post' | 'public', secret = org.shopSecret) {
  if (kind === 'public') return oidc.discovery(new URL(org.issuer), 'app', undefined, oidc.None(), insecure);
  const auth = kind === 'basic' ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
  return oidc.discovery(new URL(org.issuer), 'shop', undefined, auth, insecure);
}

/**
 * Runs the browser part: the RP's authorization URL, the wallet page, the test wallet presents the
 * organisation's credential, the page completes; returns the RP's callback URL and what the RP must remember.
 */
async function authorize(config: oidc.Configuration, org: TestOrg) {
  const { url, verifier, state, nonce } = await authorizationRequest(config);
  const browser = new Browser();
  const auth = await browser.request(url.href);
  expect(auth.status).toBe(303);
  const uid = /\/interaction\/([^/?]+)$/.exec(auth.location!)![1]!;
  const page = await fetchWithJar(browser, auth.location!);
  expect(page.status).toBe(200);
  expect((await w.present(org, page.body)).status).toBe(200);
  const callback = await followToRp(browser, `${org.issuer}/interaction/${uid}/complete`);
  return { callback, verifier, state, nonce, browser };
}

async function verifyIdToken(idToken: string, org: TestOrg, audience: string) {
  const jwks = createRemoteJWKSet(new URL(`${org.issuer}/jwks`));
  return jwtVerify(idToken, jwks, { issuer: org.issuer, audience, algorithms: ['ES256'] });
}

/** A raw token request (for the refusals openid-client would hide). */
async function tokenRequest(org: TestOrg, form: Record<string, string>, basic?: [string, string]) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}`;
  const res = await fetch(`${org.issuer}/token`, { method: 'POST', headers, body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe('a stock openid-client relying party signs an individual in through the wallet', () => {
  it('confidential client (client_secret_basic): code → tokens; the ID token verifies against /jwks with iss, aud, nonce and the claims', async () => {
    const config = await rp(w.acme, 'basic');
    const { callback, verifier, state, nonce } = await authorize(config, w.acme);
    expect(callback.searchParams.get('iss')).toBe(w.acme.issuer);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const { payload, protectedHeader } = await verifyIdToken(tokens.id_token!, w.acme, 'shop');
    expect(protectedHeader.alg).toBe('ES256');
    expect(protectedHeader.kid).toBe((await s.ctx.keys.signingKey()).kid);
    expect(payload).toMatchObject({
      iss: w.acme.issuer,
      aud: 'shop',
      sub: expect.stringMatching(/^[0-9a-f-]{36}$/),
      nonce,
      acr: 'urn:assent:acr:wallet',
      amr: ['pop'],
      ...CLAIMS,
    });
    expect(typeof payload.auth_time).toBe('number');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, payload.sub!);
    expect(info).toMatchObject({ sub: payload.sub, ...CLAIMS });
  });

  it('confidential client (client_secret_post)', async () => {
    const config = await rp(w.acme, 'post');
    const { callback, verifier, state, nonce } = await authorize(config, w.acme);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.claims()).toMatchObject(CLAIMS);
  });

  it('public client with PKCE S256 and no secret', async () => {
    const config = await rp(w.acme, 'public');
    const { callback, verifier, state, nonce } = await authorize(config, w.acme);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const { payload } = await verifyIdToken(tokens.id_token!, w.acme, 'app');
    expect(payload).toMatchObject(CLAIMS);
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('a second organisation signs with its own issuer', async () => {
    const config = await rp(w.beta, 'basic');
    const { callback, verifier, state, nonce } = await authorize(config, w.beta);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const { payload } = await verifyIdToken(tokens.id_token!, w.beta, 'shop');
    expect(payload.iss).toBe(w.beta.issuer);
  });

  it('a wrong client secret is invalid_client (the stored hash is compared)', async () => {
    const config = await rp(w.acme, 'basic');
    const { callback, verifier } = await authorize(config, w.acme);
    const form = {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: RP_CALLBACK,
      code_verifier: verifier,
    };
    const wrong = await tokenRequest(w.acme, form, ['shop', `${w.acme.shopSecret}x`]);
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid_client');
    const other = await tokenRequest(w.acme, form, ['shop', w.beta.shopSecret]);
    expect(other.body.error).toBe('invalid_client');
    expect((await tokenRequest(w.acme, form, ['shop', w.acme.shopSecret])).status).toBe(200);
  });

  it('N22: the relying party rejects an ID token whose nonce is not its own', async () => {
    const config = await rp(w.acme, 'basic');
    const { callback, verifier, state } = await authorize(config, w.acme);
    await expect(
      oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: 'other',
      }),
    ).rejects.toThrow('unexpected JWT claim value encountered');
  });
});

describe('N21: codes are single use and bound to their client, verifier and organisation', () => {
  async function freshCode(kind: 'basic' | 'public' = 'basic', org = w.acme) {
    const config = await rp(org, kind);
    const { callback, verifier } = await authorize(config, org);
    return { code: callback.searchParams.get('code')!, verifier };
  }
  const exchange = (code: string, verifier: string) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: RP_CALLBACK,
    code_verifier: verifier,
  });

  it('a reused code is invalid_grant, and the tokens of its first use are revoked', async () => {
    const { code, verifier } = await freshCode();
    const first = await tokenRequest(w.acme, exchange(code, verifier), ['shop', w.acme.shopSecret]);
    expect(first.status).toBe(200);
    const userinfo = () =>
      fetch(`${w.acme.issuer}/userinfo`, { headers: { authorization: `Bearer ${first.body.access_token}` } });
    expect((await userinfo()).status).toBe(200);
    const second = await tokenRequest(w.acme, exchange(code, verifier), ['shop', w.acme.shopSecret]);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');
    expect((await userinfo()).status).toBe(401);
  });

  it('a wrong code_verifier is invalid_grant', async () => {
    const { code } = await freshCode();
    const res = await tokenRequest(w.acme, exchange(code, oidc.randomPKCECodeVerifier()), ['shop', w.acme.shopSecret]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it("organisation A's code at organisation B is invalid_grant", async () => {
    const { code, verifier } = await freshCode('basic', w.acme);
    const res = await tokenRequest(w.beta, exchange(code, verifier), ['shop', w.beta.shopSecret]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it("another client's code is invalid_grant", async () => {
    const { code, verifier } = await freshCode('public');
    const res = await tokenRequest(w.acme, exchange(code, verifier), ['shop', w.acme.shopSecret]);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('RP-initiated logout', () => {
  it('the logout page (no script, headers, form-action allowing the RP) posts the confirmation; 303 to the post-logout URI with state', async () => {
    const config = await rp(w.acme, 'basic');
    const { callback, verifier, state, nonce, browser } = await authorize(config, w.acme);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const endUrl = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: RP_LOGGED_OUT,
      state: 'bye',
    });
    const page = await fetchWithJar(browser, endUrl.href);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:7");
    expect(page.body).not.toMatch(/<script(?![^>]*src=)/);
    expect(page.body).toContain('name="logout" value="yes"');
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(page.body)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)![1]!;
    const done = await browser.request(new URL(action, endUrl).href, { form: { xsrf, logout: 'yes' } });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${RP_LOGGED_OUT}?state=bye`);
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('ES256');
  });

  it('without a session the confirmation page is our button page, not an auto-posting script', async () => {
    const res = await fetchWithJar(new Browser(), `${w.acme.issuer}/session/end`);
    expect(res.status).toBe(200);
    expect(res.body).not.toMatch(/<script(?![^>]*src=)/);
    expect(res.body).toContain('op.logoutForm');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('CORS of the token endpoint', () => {
  it("allows the origin of one of the client's redirect URIs, and no other", async () => {
    const form = {
      grant_type: 'authorization_code',
      code: 'x',
      redirect_uri: RP_CALLBACK,
      client_id: 'app',
      code_verifier: 'v'.repeat(43),
    };
    const ask = (origin: string) =>
      fetch(`${w.acme.issuer}/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    const mine = await ask('http://127.0.0.1:7');
    expect(mine.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:7');
    const other = await ask('https://evil.example');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
