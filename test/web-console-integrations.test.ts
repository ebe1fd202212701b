/**
 * The console's Integrations and Audit log pages over HTTP (docs/web.md "Console"): who may open
 * them and use each control follows the API's access-policy rows; changes go through the API's
 * services and validation and are seen by the JSON API; a generated secret is shown once only; the
 * audit log (and its JSON API) filters by action and by acting user.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import { selfSigned } from './helpers/wallet/pki.js';

const s = consoleSuite();

const page = () => `/console/${s.org.orgId}/integrations`;
const auditPage = (query = '') => `/console/${s.org.orgId}/audit${query}`;
const api = (path: string) => `${s.t.base}/organizations/${s.org.orgId}${path}`;
const apiGet = async (path: string) => (await call(api(path), { token: s.org.tokens.owner })).body;
/** The forms of a page that change something (method post), by action. */
const postForms = (html: string) => [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);

describe('Integrations and Audit log access follow the API access policy', () => {
  it('an owner sees every section of Integrations with the controls the API lets an owner use', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.get(page());
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const heading of [
      'Notification transports',
      'Webhook delivery log',
      'External OpenID provider',
      'App redirect URIs',
      'Wallet sign-in settings',
      'Relying parties',
    ])
      expect(html).toContain(heading);
    expect(html).toContain('Save transports');
    expect(html).toContain('Save redirect URIs');
    expect(html).toContain('Register a relying party');
    expect(html).toContain('No external OpenID provider is configured.');
    expect(html).toContain('Wallet sign-in is not set up.');
  });

  it('a DPO may not read integrations (the API’s rule) and gets 403 on the page and on its forms', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    expect((await dpo.get(page())).status).toBe(403);
    const token = await dpo.csrf();
    const post = await dpo.post(`${page()}/app-redirect-uris`, { uris: 'https://dpo.example/cb', _csrf: token });
    expect(post.status).toBe(403);
    expect((await apiGet('/idp/open-id/app-redirect-uris')).RedirectURIs).not.toContain('https://dpo.example/cb');
  });

  it('a DPO reads the audit log with no form that changes anything but the header’s sign-out', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    const res = await dpo.get(auditPage());
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Audit log</h1>');
    expect(postForms(html)).toEqual(['/console/sign-out']);
  });

  it('a developer, an individual and staff of another organisation get 403 on both pages', async () => {
    for (const who of ['shop-dev@shop.example', 'carol@shop.example', 'mallory@other.example']) {
      const c = await s.as(who);
      expect((await c.get(page())).status, who).toBe(403);
      expect((await c.get(auditPage())).status, who).toBe(403);
    }
  });

  it('staff of another organisation cannot register a relying party here (403, nothing added)', async () => {
    const mallory = await s.as('mallory@other.example');
    const token = await mallory.csrf();
    const res = await mallory.post(`${page()}/relying-parties`, {
      name: 'Mallory',
      redirecturis: 'https://mallory.example/cb',
      _csrf: token,
    });
    expect(res.status).toBe(403);
    expect((await apiGet('/oidc-clients')).clients).toEqual([]);
  });
});

describe('Integrations changes go through the API’s services', () => {
  it('an owner sets the webhook and e-mail; the new signing secret is shown once, on a no-store page', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/transports`, {
      webhookurl: 'https://hooks.shop.example/assent',
      email: 'on',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const secret = /value="(whsec_[^"]+)"/.exec(await res.text())![1]!;
    const transports = await apiGet('/notification-transports');
    expect(transports).toMatchObject({
      Email: { Enabled: true, Delivery: expect.any(String) },
      Webhook: { Enabled: true, URL: 'https://hooks.shop.example/assent' },
      FCM: { Enabled: false },
      APNs: { Enabled: false },
    });
    const html = await (await owner.get(page())).text();
    expect(html).toContain('https://hooks.shop.example/assent');
    expect(html).not.toContain(secret);
    expect(html).toContain('No webhook deliveries here.');
    // The push transports are shown, set through the API (docs/notifications.md "Mobile push").
    expect(html).toMatch(/<dt>FCM<\/dt>\s*<dd>off<\/dd>/);
    expect(html).toMatch(/<dt>APNs<\/dt>\s*<dd>off<\/dd>/);
  });

  it('a webhook URL the API refuses is a 400 page and nothing changes', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/transports`, {
      webhookurl: 'http://hooks.shop.example/plain',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    const transports = await apiGet('/notification-transports');
    expect(transports.Webhook.URL).toBe('https://hooks.shop.example/assent');
    expect(transports.Email.Enabled).toBe(true);
  });

  it('app redirect URIs replaced from the textarea equal the API’s list', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const uris = 'https://app.shop.example/cb\r\n\r\n  com.shop.app:/signed-in  \nhttps://app.shop.example/cb\n';
    const res = await owner.post(`${page()}/app-redirect-uris`, { uris, _csrf: await owner.csrf() });
    expect(res.status).toBe(303);
    const list = (await apiGet('/idp/open-id/app-redirect-uris')).RedirectURIs;
    expect(list).toEqual(['com.shop.app:/signed-in', 'https://app.shop.example/cb']);
    const html = await (await owner.get(page())).text();
    expect(html).toContain('<code>com.shop.app:/signed-in</code>');
  });

  it('redirect URIs the API refuses (a script URI, more than 50) are a 400 page and change nothing', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const bad = await owner.post(`${page()}/app-redirect-uris`, { uris: 'javascript:alert(1)', _csrf: token });
    expect(bad.status).toBe(400);
    const many = Array.from({ length: 51 }, (_, i) => `https://app.shop.example/${i}`).join('\n');
    expect((await owner.post(`${page()}/app-redirect-uris`, { uris: many, _csrf: token })).status).toBe(400);
    const list = (await apiGet('/idp/open-id/app-redirect-uris')).RedirectURIs;
    expect(list).toEqual(['com.shop.app:/signed-in', 'https://app.shop.example/cb']);
  });

  it('a relying party registered from the page is in the API’s list; its secret is shown once only', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/relying-parties`, {
      clientid: 'web-shop',
      name: 'Web shop',
      redirecturis: 'https://shop.example/signed-in\nhttps://shop.example/other',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const secret = /id="secret" type="text" readonly value="([^"]+)"/i.exec(await res.text())![1]!;
    expect(secret.length).toBeGreaterThan(20);
    const { clients } = await apiGet('/oidc-clients');
    expect(clients).toEqual([
      expect.objectContaining({
        clientId: 'web-shop',
        name: 'Web shop',
        public: false,
        redirectUris: ['https://shop.example/signed-in', 'https://shop.example/other'],
      }),
    ]);
    expect(JSON.stringify(clients)).not.toContain(secret);
    const html = await (await owner.get(page())).text();
    expect(html).toContain('<code>web-shop</code>');
    expect(html).toContain('confidential');
    expect(html).not.toContain(secret);
  });

  it('a public relying party has no secret; a bad redirect URI is a 400 page and registers nothing', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const pub = await owner.post(`${page()}/relying-parties`, {
      clientid: 'shop-app',
      name: 'Shop app',
      redirecturis: 'com.shop.app:/cb',
      public: 'on',
      _csrf: token,
    });
    expect(pub.status).toBe(303);
    expect(pub.headers.get('location')).toBe(`${page()}?done=client`);
    const bad = await owner.post(`${page()}/relying-parties`, {
      clientid: 'bad-rp',
      name: 'Bad',
      redirecturis: 'javascript:alert(1)',
      _csrf: token,
    });
    expect(bad.status).toBe(400);
    const ids = (await apiGet('/oidc-clients')).clients.map((c: { clientId: string }) => c.clientId);
    expect(ids).toEqual(['shop-app', 'web-shop']);
  });

  it('a script in a relying party’s name shows as text', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const name = '<script>window.__xss=1</script>';
    const res = await owner.post(`${page()}/relying-parties`, {
      clientid: 'xss-rp',
      name,
      redirecturis: 'https://xss.example/cb',
      public: 'on',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(303);
    const html = await (await owner.get(page())).text();
    expect(html).toContain('&lt;script>window.__xss=1&lt;/script>');
    expect(html).not.toContain(name);
  });

  it('deleting a relying party needs its confirmation box: without it a 400 page and the client stays', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(page())).text();
    expect(html).toMatch(/name="confirm"[^>]*required[^>]*>\s*I confirm: delete /);
    const res = await owner.post(`${page()}/relying-parties/xss-rp/delete`, { _csrf: await owner.csrf() });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/html');
    const ids = (await apiGet('/oidc-clients')).clients.map((c: { clientId: string }) => c.clientId);
    expect(ids).toContain('xss-rp');
  });

  it('an owner deletes a relying party from the page once confirmed; the API no longer lists it', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`${page()}/relying-parties/xss-rp/delete`, {
      _csrf: await owner.csrf(),
      confirm: 'on',
    });
    expect(res.status).toBe(303);
    const ids = (await apiGet('/oidc-clients')).clients.map((c: { clientId: string }) => c.clientId);
    expect(ids).toEqual(['shop-app', 'web-shop']);
  });

  it('the external provider shows its issuer, client ID and scopes, never its secret', async () => {
    const secret = 'idp-client-secret-never-shown';
    const body = {
      issuer: 'https://idp.shop.example',
      authorizationUrl: 'https://idp.shop.example/auth',
      tokenUrl: 'https://idp.shop.example/token',
      logoutUrl: 'https://idp.shop.example/logout',
      jwksUrl: 'https://idp.shop.example/jwks',
      userInfoUrl: 'https://idp.shop.example/userinfo',
      clientId: 'assent-shop',
      clientSecret: secret,
      disableUserInfo: false,
      defaultScope: 'openid email',
    };
    const created = await call(api('/idp/open-id'), { token: s.org.tokens.owner, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(page())).text();
    expect(html).toContain('https://idp.shop.example');
    expect(html).toContain('assent-shop');
    expect(html).toContain('openid email');
    expect(html).not.toContain(secret);
  });

  it('the wallet settings show the profile, the trusted issuers and the verifier certificate’s expiry', async () => {
    const ca = await selfSigned('Shop Test Issuer CA');
    const body = { generateVerifierKey: true, trustedIssuerCertificates: [ca.pem], sameDeviceOnly: true };
    expect((await call(api('/wallet'), { method: 'PUT', token: s.org.tokens.owner, body })).status).toBe(200);
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(page())).text();
    expect(html).toContain('<dd>haip</dd>');
    expect(html).toContain('CN=Shop Test Issuer CA');
    expect(html).toMatch(/Verifier certificate expires<\/dt><dd>\d{4}-\d\d-\d\dT/);
    expect(html).toContain('io.igrant.authenticator');
    expect(html).not.toContain('PRIVATE KEY');
  });
});

describe('the audit log page and its API filter', () => {
  it('shows the entries of the changes made from the console, newest first', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(auditPage())).text();
    const actions = [...html.matchAll(/<a href="[^"]*action=([^"&]+)[^"]*">([^<]+)<\/a>/g)].map((m) => m[2]);
    expect(actions.slice(0, 4)).toEqual([
      'wallet.settings.update',
      'idp.create',
      'oidc-client.delete',
      'oidc-client.create',
    ]);
    expect(actions).toContain('idp.app-redirect-uris.update');
    expect(html).toContain(s.org.users.owner);
  });

  it('filters by action and by acting user, and the older-page link keeps the filter', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const byAction = await (await owner.get(auditPage('?action=oidc-client.create'))).text();
    const rows = byAction.match(/<tr>/g)!.length - 1;
    expect(rows).toBe(3);
    expect(byAction).not.toContain('>idp.create<');
    const nobody = await (await owner.get(auditPage(`?actor=${s.org.users.dpo}`))).text();
    expect(nobody).toContain('No entries match these filters.');
    // A page of 25: 30 entries of one action page on with the filter kept.
    for (let i = 0; i < 15; i++) {
      const uris = { RedirectURIs: [`https://app.shop.example/${i}`] };
      await call(api('/idp/open-id/app-redirect-uris'), { method: 'PUT', token: s.org.tokens.owner, body: uris });
      await call(api('/idp/open-id/app-redirect-uris'), { method: 'PUT', token: s.org.tokens.admin, body: uris });
    }
    const first = await (await owner.get(auditPage('?action=idp.app-redirect-uris.update'))).text();
    const older = /<a href="([^"]+)">Older entries<\/a>/.exec(first)![1]!.replaceAll('&amp;', '&');
    expect(older).toContain('action=idp.app-redirect-uris.update');
    const second = await (await owner.get(older)).text();
    expect(second.match(/>idp\.app-redirect-uris\.update</g)).toHaveLength(6);
  });

  it('the JSON API takes the same action and actor filters, kept in Links.Next', async () => {
    const q = `?action=idp.app-redirect-uris.update&actor=${s.org.users.admin}&limit=10`;
    const res = await call(api(`/audit-log${q}`), { token: s.org.tokens.dpo });
    expect(res.status).toBe(200);
    expect(res.body.Entries).toHaveLength(10);
    for (const e of res.body.Entries) {
      expect(e.Action).toBe('idp.app-redirect-uris.update');
      expect(e.ActorUserID).toBe(s.org.users.admin);
    }
    const next = new URL(res.body.Links.Next);
    expect(next.searchParams.get('action')).toBe('idp.app-redirect-uris.update');
    expect(next.searchParams.get('actor')).toBe(s.org.users.admin);
    const rest = await call(res.body.Links.Next, { token: s.org.tokens.dpo });
    expect(rest.body.Entries).toHaveLength(5);
    expect(rest.body.Links.Next).toBeUndefined();
  });

  it('a malformed actor is a 400, in the API and on the page', async () => {
    expect((await call(api('/audit-log?actor=not-a-user'), { token: s.org.tokens.owner })).status).toBe(400);
    const owner = await s.as('shop-owner@shop.example');
    expect((await owner.get(auditPage('?actor=not-a-user'))).status).toBe(400);
  });
});
