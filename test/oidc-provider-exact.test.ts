/**
 * What an organisation's OpenID provider advertises is what it serves (OpenID Connect Discovery 1.0
 * §3), and redirect URIs are matched as exact strings (RFC 9700 §4.1.3; docs/wallet.md "Relying
 * parties"), at `/auth` and at `/session/end`. A stock openid-client relying party runs each
 * advertised response mode and grant type to its end; the test wallet answers the wallet page.
 */
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import {
  authParams,
  authUrl,
  Browser,
  fetchWithJar,
  followToRp,
  type ProviderWorld,
  providerWorld,
  RP_CALLBACK,
} from './helpers/provider.js';
import { authorizationRequest } from './helpers/wallet/flow.js';

let s: TestAssent;
let w: ProviderWorld;

/** A relying party registered with one https redirect URI and one post-logout URI. */
const EXACT = { redirect: 'https://rp.acme.example/cb', loggedOut: 'https://rp.acme.example/bye' };

beforeAll(async () => {
  s = await startAssent();
  w = await providerWorld(s);
  const res = await call(`${s.base}/organizations/${w.acme.id}/oidc-clients`, {
    method: 'POST',
    token: w.acme.ownerToken,
    body: {
      clientId: 'exact',
      name: 'Exact',
      redirectUris: [EXACT.redirect],
      postLogoutRedirectUris: [EXACT.loggedOut],
    },
  });
  if (res.status !== 201) throw new Error(`relying party: ${res.status} ${JSON.stringify(res.body)}`);
}, 60_000);
afterAll(() => s?.stop());

const discovery = async () => (await call(`${w.acme.issuer}/.well-known/openid-configuration`)).body;

describe('discovery advertises exactly what is served (OpenID Connect Discovery 1.0 §3)', () => {
  it('response_modes_supported is query, grant_types_supported authorization_code', async () => {
    const doc = await discovery();
    expect(doc.response_modes_supported).toEqual(['query']);
    expect(doc.grant_types_supported).toEqual(['authorization_code']);
  });

  it('each advertised response mode, asked for explicitly, and each advertised grant type work to the end; no refresh token', async () => {
    const doc = await discovery();
    const config = await oidc.discovery(
      new URL(w.acme.issuer),
      'shop',
      undefined,
      oidc.ClientSecretBasic(w.acme.shopSecret),
      { execute: [oidc.allowInsecureRequests] },
    );
    for (const mode of doc.response_modes_supported as string[]) {
      const { url, verifier, state, nonce } = await authorizationRequest(config);
      url.searchParams.set('response_mode', mode);
      const browser = new Browser();
      const auth = await browser.request(url.href);
      expect(auth.status, mode).toBe(303);
      const uid = /\/interaction\/([^/?]+)$/.exec(auth.location!)![1]!;
      const page = await fetchWithJar(browser, auth.location!);
      expect((await w.present(w.acme, page.body)).status).toBe(200);
      const callback = await followToRp(browser, `${w.acme.issuer}/interaction/${uid}/complete`);
      expect(doc.grant_types_supported).toEqual(['authorization_code']);
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
      });
      expect(tokens.id_token, mode).toBeTruthy();
      expect(tokens.refresh_token, mode).toBeUndefined();
    }
  });

  it('what is not advertised is refused: form_post and fragment (redirected error), the refresh_token grant', async () => {
    for (const mode of ['form_post', 'fragment']) {
      const res = await fetchWithJar(new Browser(), authUrl(w.acme, authParams({ response_mode: mode })));
      expect(res.status, mode).toBe(303);
      const to = new URL(res.location!);
      expect(`${to.origin}${to.pathname}`).toBe(RP_CALLBACK);
      expect(to.searchParams.get('error'), mode).toBe('invalid_request');
    }
    const res = await fetch(`${w.acme.issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`shop:${w.acme.shopSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('unsupported_grant_type');
  });
});

describe('redirect URIs are matched as exact strings (RFC 9700 §4.1.3)', () => {
  const variants = [
    ['scheme and host in upper case', 'HTTPS://RP.ACME.EXAMPLE/cb'],
    ['a dot-dot segment', 'https://rp.acme.example/x/../cb'],
    ['the default port written out', 'https://rp.acme.example:443/cb'],
  ];

  it('at /auth the registered string is accepted: 303 to the wallet page', async () => {
    const res = await fetchWithJar(
      new Browser(),
      authUrl(w.acme, authParams({ client_id: 'exact', redirect_uri: EXACT.redirect })),
    );
    expect(res.status).toBe(303);
    expect(res.location).toMatch(new RegExp(`^${w.acme.issuer}/interaction/`));
  });

  for (const [name, uri] of variants)
    it(`at /auth a redirect_uri that only normalises to the registered one is refused: ${name}`, async () => {
      const res = await fetchWithJar(
        new Browser(),
        authUrl(w.acme, authParams({ client_id: 'exact', redirect_uri: uri })),
      );
      // The error page, never a redirect to the unregistered string.
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expect(res.body).toContain('redirect_uri');
    });

  const endSession = (uri: string) =>
    fetchWithJar(
      new Browser(),
      `${w.acme.issuer}/session/end?${new URLSearchParams({ client_id: 'exact', post_logout_redirect_uri: uri })}`,
    );

  it('at /session/end the registered post_logout_redirect_uri is accepted: the confirmation page', async () => {
    const res = await endSession(EXACT.loggedOut);
    expect(res.status).toBe(200);
    expect(res.body).toContain('op.logoutForm');
  });

  it('at /session/end a post_logout_redirect_uri that only normalises to the registered one is refused', async () => {
    for (const uri of [
      'HTTPS://RP.ACME.EXAMPLE/bye',
      'https://rp.acme.example/x/../bye',
      'https://rp.acme.example:443/bye',
    ]) {
      const res = await endSession(uri);
      expect(res.status, uri).toBe(400);
      expect(res.location, uri).toBeNull();
      expect(res.body, uri).toContain('post_logout_redirect_uri');
    }
  });
});
