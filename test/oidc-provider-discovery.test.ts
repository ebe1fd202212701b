/**
 * The per-organisation OpenID provider's discovery, JWKS and authorization-request rules (docs/api.md "Authorization endpoint";
 * docs/wallet.md "The OpenID provider", "The authorization request").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import {
  authParams,
  authUrl,
  Browser,
  expectPageHeaders,
  fetchWithJar,
  type ProviderWorld,
  providerWorld,
  RP_CALLBACK,
} from './helpers/provider.js';

let s: TestAssent;
let w: ProviderWorld;

beforeAll(async () => {
  s = await startAssent();
  w = await providerWorld(s);
});
afterAll(() => s?.stop());

describe('discovery and JWKS per organisation', () => {
  it('each organisation has its own issuer and endpoints under its prefix', async () => {
    for (const org of [w.acme, w.beta]) {
      const res = await call(`${org.issuer}/.well-known/openid-configuration`);
      expect(res.status).toBe(200);
      expect(res.body.issuer).toBe(org.issuer);
      expect(res.body.authorization_endpoint).toBe(`${org.issuer}/auth`);
      expect(res.body.token_endpoint).toBe(`${org.issuer}/token`);
      expect(res.body.userinfo_endpoint).toBe(`${org.issuer}/userinfo`);
      expect(res.body.jwks_uri).toBe(`${org.issuer}/jwks`);
      expect(res.body.end_session_endpoint).toBe(`${org.issuer}/session/end`);
      expect(res.body.response_types_supported).toEqual(['code']);
      expect(res.body.code_challenge_methods_supported).toEqual(['S256']);
      expect(res.body.id_token_signing_alg_values_supported).toEqual(['ES256']);
      expect(res.body.authorization_response_iss_parameter_supported).toBe(true);
    }
    expect(w.acme.issuer).not.toBe(w.beta.issuer);
  });

  it('offers only the endpoints docs/api.md "Authorization endpoint" needs: no pushed authorization requests, introspection or revocation', async () => {
    // Attack surface: every endpoint a relying party never uses is one more to get wrong.
    const res = await call(`${w.acme.issuer}/.well-known/openid-configuration`);
    const endpoints = Object.keys(res.body).filter((key) => key.endsWith('_endpoint'));
    expect(endpoints.sort()).toEqual([
      'authorization_endpoint',
      'end_session_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
    ]);
    const par = await fetch(`${w.acme.issuer}/request`, { method: 'POST' });
    expect(par.status).toBe(404);
  });

  it("/jwks publishes Assent's ES256 key ring, public halves only", async () => {
    const res = await call(`${w.acme.issuer}/jwks`);
    expect(res.status).toBe(200);
    // oidc-provider's own answers carry the API's security headers too.
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const ring = await s.ctx.keys.jwks();
    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toEqual(ring.keys.map((k) => k.kid));
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
      expect(key.d).toBeUndefined();
    }
  });

  it('an unknown organisation, or another spelling of a known one, gets the HTML error page with 404, and no provider', async () => {
    for (const org of ['00000000-0000-7000-8000-000000000000', 'not-an-id', w.acme.id.toUpperCase()]) {
      const res = await fetch(`${s.url}/v3/service/extension/oidc/${org}/.well-known/openid-configuration`);
      expect(res.status, org).toBe(404);
      expect(res.headers.get('content-type'), org).toMatch(/^text\/html/);
      expectPageHeaders(res.headers);
      expect(await res.text()).toContain('Unknown organisation');
    }
    // Percent-encoded, the path matches no route at all: the app's JSON 404.
    const encoded = w.acme.id.replace(/-/g, '%2D');
    const res = await fetch(`${s.url}/v3/service/extension/oidc/${encoded}/.well-known/openid-configuration`);
    expect(res.status).toBe(404);
  });

  it("a path under the wallet's oid4vp/ endpoints that no wallet route matches is the API's JSON 404, not the provider's page", async () => {
    // 137 characters: over the router's parameter limit, so the request route does not match.
    for (const org of [w.acme.id, 'fuzz']) {
      const res = await fetch(`${s.url}/v3/service/extension/oidc/${org}/oid4vp/request/${'a'.repeat(137)}`);
      expect(res.status, org).toBe(404);
      expect(await res.json(), org).toEqual({ Code: 404, Message: 'Not found' });
    }
  });
});

describe('N20: unknown client, unregistered redirect URI or unknown organisation: error page, no redirect', () => {
  const cases: [string, Record<string, string | undefined>][] = [
    ['unknown client_id', { client_id: 'nobody' }],
    ['unregistered redirect_uri', { redirect_uri: 'http://127.0.0.1:7/other' }],
    ['redirect_uri differing only by a trailing slash', { redirect_uri: `${RP_CALLBACK}/` }],
    ['missing redirect_uri', { redirect_uri: undefined }],
  ];
  for (const [name, over] of cases)
    it(name, async () => {
      const res = await fetchWithJar(new Browser(), authUrl(w.acme, authParams(over)));
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
      expectPageHeaders(res.headers);
      expect(res.body).not.toContain('<script');
    });

  it('the error page echoes no parameter: a script in client_id or redirect_uri is not reflected', async () => {
    const evil = '<script>alert(1)</script>';
    for (const over of [{ client_id: evil }, { redirect_uri: `http://127.0.0.1:7/${evil}` }]) {
      const res = await fetchWithJar(new Browser(), authUrl(w.acme, authParams(over)));
      expect(res.status).toBe(400);
      expect(res.body).not.toContain('alert(1)');
    }
  });

  it('unknown organisation', async () => {
    const res = await fetchWithJar(
      new Browser(),
      `${s.url}/v3/service/extension/oidc/00000000-0000-7000-8000-000000000000/auth?${new URLSearchParams(authParams())}`,
    );
    expect(res.status).toBe(404);
    expect(res.location).toBeNull();
    expectPageHeaders(res.headers);
  });

  it("a client of organisation A is unknown at organisation B's provider", async () => {
    const res = await fetchWithJar(new Browser(), authUrl(w.beta, authParams({ client_id: 'app' })));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
  });
});

describe('N19: other bad parameters with a valid client and redirect URI: OIDC error redirect with state', () => {
  const cases: [string, Record<string, string | undefined>, string][] = [
    ['missing state', { state: undefined }, 'invalid_request'],
    ['missing nonce', { nonce: undefined }, 'invalid_request'],
    ['missing scope', { scope: undefined }, 'invalid_request'],
    ['scope without openid', { scope: 'email' }, 'invalid_request'],
    ['missing response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['response_mode=form_post', { response_mode: 'form_post' }, 'invalid_request'],
  ];
  for (const [name, over, error] of cases)
    it(name, async () => {
      const res = await fetchWithJar(new Browser(), authUrl(w.acme, authParams(over)));
      expect(res.status, res.body).toBe(303);
      const to = new URL(res.location!);
      expect(`${to.origin}${to.pathname}`).toBe(RP_CALLBACK);
      // response_type=token answers in the fragment (RFC 6749 §4.2.2.1), every other one in the query.
      const got = over.response_type === 'token' ? new URLSearchParams(to.hash.slice(1)) : to.searchParams;
      expect(got.get('error')).toBe(error);
      if (over.state !== undefined || !('state' in over)) expect(got.get('state')).toBe('st-123');
      expect(got.get('iss')).toBe(w.acme.issuer);
      expect(got.get('code')).toBeNull();
    });

  it('a public client without PKCE is refused; with code_challenge_method=plain too', async () => {
    for (const over of [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }]) {
      const res = await fetchWithJar(new Browser(), authUrl(w.acme, authParams({ client_id: 'app', ...over })));
      expect(res.status).toBe(303);
      const to = new URL(res.location!);
      expect(to.searchParams.get('error')).toBe('invalid_request');
      expect(to.searchParams.get('state')).toBe('st-123');
    }
  });

  it('a valid request answers 303 to the wallet page of the same origin, with the interaction cookie', async () => {
    const browser = new Browser();
    const res = await browser.request(authUrl(w.acme, authParams()));
    expect(res.status).toBe(303);
    expect(res.location).toMatch(new RegExp(`^${w.acme.issuer}/interaction/[A-Za-z0-9_-]+$`));
    expect(browser.cookies.has('_interaction')).toBe(true);
    expect(browser.cookies.has('_interaction.sig')).toBe(true);
  });

  it('the interaction cookie is scoped to its interaction, HttpOnly and SameSite=Lax', async () => {
    const res = await fetch(authUrl(w.acme, authParams()), { redirect: 'manual' });
    const uid = /\/interaction\/([^/?]+)$/.exec(res.headers.get('location')!)![1]!;
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('_interaction='))!;
    const path = new URL(w.acme.issuer).pathname;
    expect(cookie).toContain(`path=${path}/interaction/${uid}`);
    expect(cookie.toLowerCase()).toContain('httponly');
    expect(cookie.toLowerCase()).toContain('samesite=lax');
  });

  it('prompt=none never signs in silently: login_required to the relying party, with state', async () => {
    const res = await fetchWithJar(new Browser(), authUrl(w.acme, authParams({ prompt: 'none' })));
    expect(res.status).toBe(303);
    const to = new URL(res.location!);
    expect(to.searchParams.get('error')).toBe('login_required');
    expect(to.searchParams.get('state')).toBe('st-123');
  });
});
