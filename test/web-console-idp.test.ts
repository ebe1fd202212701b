/**
 * The console's external OpenID provider form over HTTP (docs/web.md "Console"; docs/federation.md
 * "Configuration"), against a real oidc-provider on 127.0.0.1: an owner configures it from the
 * issuer's discovery document, signs in through it, edits it with the secret field empty (the stored
 * secret is kept and never shown) and deletes it after the confirmation step; input the service
 * refuses is a 4xx page with the message beside the form and stores nothing; a DPO and a post without
 * the CSRF token change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, freePort } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import { Browser, startProvider, type TestProvider } from './helpers/oidc.js';

const APP = 'https://app.shop.example/cb';
const SECRET = 'provider-client-secret-never-shown';
const s = consoleSuite({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
let op: TestProvider;
const page = () => `/console/${s.org.orgId}/integrations`;
const idpApi = () => `${s.t.base}/organizations/${s.org.orgId}/idp/open-id`;
const apiIdp = () => call(idpApi(), { token: s.org.tokens.owner });
const auditActions = async () =>
  (await call(`${s.t.base}/organizations/${s.org.orgId}/audit-log`, { token: s.org.tokens.owner })).body.Entries.map(
    (e: { Action: string }) => e.Action,
  );
/** The IdP form as an owner fills it in, discovery ticked; `''` leaves a field out, as a browser an unticked box. */
const form = (over: Record<string, string> = {}) =>
  Object.fromEntries(
    Object.entries({
      issuer: op.issuer,
      discover: 'on',
      clientid: 'assent-shop',
      clientsecret: SECRET,
      defaultscope: 'openid email',
      validatesignature: 'on',
      ...over,
    }).filter(([, v]) => v !== ''),
  );
/** The IdP section of a page, where a refused form's message shows. */
const idpSection = (html: string) => /<section class="card" aria-labelledby="idp">[\s\S]*?<\/section>/.exec(html)![0];

/** Signs in through the configured provider and exchanges the code: 200 only with the right client secret. */
async function signInThroughProvider(who: string): Promise<number> {
  const start = `${idpApi()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=s1`;
  const result = await new Browser().drive(start, APP, { login: who, password: 'any' });
  const code = new URL(result.location!).searchParams.get('code');
  if (!code) return 0;
  const url = `${idpApi()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=${encodeURIComponent(code)}`;
  return (await call(url, { method: 'POST' })).status;
}

beforeAll(async () => {
  const callback = `${s.t.url}/v1/organizations/${s.org.orgId}/idp/open-id/callback`;
  op = await startProvider({ client_id: 'assent-shop', client_secret: SECRET, redirect_uris: [callback] });
  const uris = { RedirectURIs: [APP] };
  await call(`${idpApi()}/app-redirect-uris`, { method: 'PUT', token: s.org.tokens.owner, body: uris });
});
afterAll(() => op?.close());

describe('input the service refuses shows beside the form with its 4xx, and stores nothing', () => {
  it('a non-https issuer is a 400 naming the field; the typed secret is not sent back', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/idp/create`, {
      ...form({ discover: '', issuer: 'http://idp.shop.example' }),
      authorizationurl: 'https://idp.shop.example/auth',
      tokenurl: 'https://idp.shop.example/token',
      jwksurl: 'https://idp.shop.example/jwks',
      userinfourl: 'https://idp.shop.example/me',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(idpSection(html)).toMatch(
      /<p class="error" role="alert">Invalid IdP configuration: issuer: must be an https URL/,
    );
    expect(idpSection(html)).toContain('value="http://idp.shop.example"');
    expect(html).not.toContain(SECRET);
    expect((await apiIdp()).status).toBe(404);
  });

  it('an unreachable discovery document is a 400 naming the failure; nothing is stored', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const issuer = `http://127.0.0.1:${await freePort()}`;
    const res = await owner.post(`${page()}/idp/create`, { ...form({ issuer }), _csrf: await owner.csrf() });
    expect(res.status).toBe(400);
    expect(idpSection(await res.text())).toMatch(
      /role="alert">The discovery document of http:\/\/127\.0\.0\.1:\d+ could not be used: network error \(ECONNREFUSED\)/,
    );
    expect((await apiIdp()).status).toBe(404);
    expect(await auditActions()).not.toContain('idp.create');
  });

  it('a discovery issuer at a private address is refused before any request (SSRF)', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/idp/create`, {
      ...form({ issuer: 'https://10.0.0.1' }),
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    expect(idpSection(await res.text())).toContain('issuer: must not name a loopback, private, link-local');
    expect((await apiIdp()).status).toBe(404);
  });
});

describe('an owner manages the external provider from the console', () => {
  it('configures it from the discovery document: the API reads the provider’s endpoints, sign-in works', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/idp/create`, { ...form(), _csrf: await owner.csrf() });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${page()}?done=idp-created`);
    const discovery = await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json();
    const stored = await apiIdp();
    expect(stored.body).toEqual({
      issuer: op.issuer,
      authorizationUrl: discovery.authorization_endpoint,
      tokenUrl: discovery.token_endpoint,
      jwksUrl: discovery.jwks_uri,
      userInfoUrl: discovery.userinfo_endpoint,
      logoutUrl: discovery.end_session_endpoint,
      clientId: 'assent-shop',
      validateSignature: true,
      disableUserInfo: false,
      defaultScope: 'openid email',
    });
    expect(await signInThroughProvider('jdoe')).toBe(200);
    expect((await auditActions())[0]).toBe('idp.create');
  });

  it('the page shows the configuration and the callback to register, never the secret', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(`${page()}?done=idp-created`)).text();
    expect(html).toContain('External OpenID provider saved.');
    expect(html).toContain(`<code>${s.t.url}/v1/organizations/${s.org.orgId}/idp/open-id/callback</code>`);
    expect(html).toContain(`action="${page()}/idp/update"`);
    expect(html).toContain('id="idp-clientsecret" name="clientsecret" type="password"');
    expect(html).not.toContain(SECRET);
  });

  it('an edit with the secret field empty changes the scopes and keeps the stored secret', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const stored = (await apiIdp()).body;
    const res = await owner.post(`${page()}/idp/update`, {
      issuer: stored.issuer,
      authorizationurl: stored.authorizationUrl,
      tokenurl: stored.tokenUrl,
      jwksurl: stored.jwksUrl,
      userinfourl: stored.userInfoUrl,
      logouturl: stored.logoutUrl,
      clientid: stored.clientId,
      clientsecret: '',
      defaultscope: 'openid email profile',
      validatesignature: 'on',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(303);
    expect((await apiIdp()).body).toEqual({ ...stored, defaultScope: 'openid email profile' });
    // The provider checks the client secret at the token endpoint: the kept one still works.
    expect(await signInThroughProvider('jdoe')).toBe(200);
    const entry = (
      await call(`${s.t.base}/organizations/${s.org.orgId}/audit-log?action=idp.update`, { token: s.org.tokens.owner })
    ).body.Entries[0];
    expect(entry.Detail).toEqual({ fields: ['defaultScope'] });
  });

  it('a second provider is the API’s 409 beside the form, and the first stays as it was', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = (await apiIdp()).body;
    const res = await owner.post(`${page()}/idp/create`, { ...form({ clientid: 'other' }), _csrf: await owner.csrf() });
    expect(res.status).toBe(409);
    expect(idpSection(await res.text())).toContain('An identity provider is already configured for this organisation');
    expect((await apiIdp()).body).toEqual(before);
  });

  it('an edit the service refuses (no openid scope) is a 400 beside the form and changes nothing', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = (await apiIdp()).body;
    const res = await owner.post(`${page()}/idp/update`, {
      ...form({ discover: '', defaultscope: 'email' }),
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    expect(idpSection(await res.text())).toContain('defaultScope: must include openid');
    expect((await apiIdp()).body).toEqual(before);
  });
});

describe('who may change the provider', () => {
  it('a DPO gets 403 on the page and on every IdP form; nothing changes', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    expect((await dpo.get(page())).status).toBe(403);
    const token = await dpo.csrf();
    const before = (await apiIdp()).body;
    for (const [path, body] of [
      ['/idp/create', form()],
      ['/idp/update', form({ defaultscope: 'openid' })],
      ['/idp/delete', { confirm: 'on' }],
    ] as const)
      expect((await dpo.post(`${page()}${path}`, { ...body, _csrf: token })).status, path).toBe(403);
    expect((await apiIdp()).body).toEqual(before);
  });

  it('an admin sees the form; a post without the CSRF token, or from another origin, is refused 403', async () => {
    const admin = await s.as('shop-admin@shop.example');
    expect(await (await admin.get(page())).text()).toContain(`action="${page()}/idp/update"`);
    expect((await admin.post(`${page()}/idp/delete`, { confirm: 'on' })).status).toBe(403);
    const token = await admin.csrf();
    const cross = await admin.post(
      `${page()}/idp/delete`,
      { confirm: 'on', _csrf: token },
      { origin: 'https://evil.example' },
    );
    expect(cross.status).toBe(403);
    expect((await apiIdp()).status).toBe(200);
  });
});

describe('deleting the provider takes the confirmation step', () => {
  it('without the box ticked it is a 400 and the provider stays', async () => {
    const owner = await s.as('shop-owner@shop.example');
    expect((await owner.post(`${page()}/idp/delete`, { _csrf: await owner.csrf() })).status).toBe(400);
    expect((await apiIdp()).status).toBe(200);
  });

  it('with it, the provider is gone from the API and the page offers to configure one again', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/idp/delete`, { confirm: 'on', _csrf: await owner.csrf() });
    expect(res.status).toBe(303);
    expect((await apiIdp()).status).toBe(404);
    expect((await auditActions())[0]).toBe('idp.delete');
    const html = await (await owner.get(`${page()}?done=idp-deleted`)).text();
    expect(html).toContain('No external OpenID provider is configured.');
    expect(html).toContain(`action="${page()}/idp/create"`);
  });
});
