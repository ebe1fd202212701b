/**
 * Single logout against a real IdP (SimpleSAMLphp, test/helpers/saml-idp.ts) that sends its logout
 * messages to Assent on the HTTP-POST binding (SAML 2.0 Bindings §3.5), then on HTTP-Redirect (§3.4), through Assent's HTTP API
 * and a browser-less user agent with a cookie jar: the IdP's POSTed LogoutResponse to an
 * SP-initiated logout brings the browser back to the app, and the IdP's own logout
 * (`SingleLogoutService.php?ReturnTo=`, as an ADFS or Keycloak logout chain) sends Assent a signed
 * LogoutRequest, which ends the Assent session and is answered with a LogoutResponse the IdP
 * accepts (it requires signed logout messages).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { Browser } from './helpers/oidc.js';
import { driveSaml, pageForm, samlIdpAvailable, startSamlIdp, type TestSamlIdp } from './helpers/saml-idp.js';
import { configureSaml, spCertificateOf } from './helpers/saml-logout.js';

const APP = 'https://app.example/cb';
const available = samlIdpAvailable();
let t: TestAssent;
let idp: TestSamlIdp;
let orgId: string;
let owner: string;
let spCertificate: string;
const saml = () => `${t.base}/organizations/${orgId}/idp/saml`;
const slo = () => `${saml()}/logout/callback`;

/** Starts SimpleSAMLphp for Assent's SP, sending its logout messages on `sloBinding`. */
const startIdp = (sloBinding: 'HTTP-Redirect' | 'HTTP-POST') =>
  startSamlIdp({
    entityId: `${saml()}/metadata`,
    acsUrl: `${saml()}/acs`,
    sloUrl: slo(),
    sloBinding,
    certificate: spCertificate,
  });

/** Signs alice in at the IdP and Assent in `browser`; returns the Assent access token. */
async function signIn(browser: Browser): Promise<string> {
  const start = `${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=s`;
  const res = await driveSaml(browser, start, APP, { username: 'alice', password: 'alicepass' });
  const code = new URL(res.location!).searchParams.get('code')!;
  const session = await call(
    `${t.base}/organizations/${orgId}/idp/open-id/exchange?redirect_uri=${encodeURIComponent(APP)}&code=${code}`,
    { method: 'POST' },
  );
  expect(session.status, JSON.stringify(session.body)).toBe(200);
  return session.body.Token.access_token as string;
}

/**
 * Follows redirects and auto-submitting forms from `url` until a redirect leaves for `stopAt`.
 * @returns that redirect's target (or null) and every answer Assent's SLO endpoint gave on the way.
 */
async function follow(browser: Browser, url: string, stopAt: string) {
  const atSlo: { method: string; status: number; body: string }[] = [];
  let next: { url: string; form?: Record<string, string> } | null = { url };
  for (let i = 0; i < 10 && next; i++) {
    const res = await browser.request(next.url, next.form ? { form: next.form } : {});
    if (next.url.startsWith(slo()))
      atSlo.push({ method: next.form ? 'POST' : 'GET', status: res.status, body: res.body });
    if (res.location?.startsWith(stopAt)) return { location: res.location, atSlo };
    if (res.location) next = { url: res.location };
    else {
      const form = pageForm(res.body, next.url);
      next = form ? { url: form.action, form: form.fields } : null;
    }
  }
  return { location: null, atSlo };
}

describe.skipIf(!available)('SAML single logout with SimpleSAMLphp on the HTTP-POST binding', () => {
  beforeAll(async () => {
    t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
    orgId = t.ids.organisations.acme!.id;
    owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
    spCertificate = await spCertificateOf(t.base, orgId);
    idp = await startIdp('HTTP-POST');
    await configureSaml(t.base, orgId, owner, { metadataUrl: idp.metadataUrl }, APP);
  }, 60_000);
  afterAll(async () => {
    await idp?.close();
    await t?.stop();
  });

  it('the IdP’s POSTed LogoutResponse to Assent’s LogoutRequest brings the browser back to the app', async () => {
    const browser = new Browser();
    const token = await signIn(browser);
    const out = await call(`${saml()}/logout?redirect_uri=${encodeURIComponent(APP)}`, { method: 'POST', token });
    expect(out.status).toBe(204);
    const link = /^<([^>]+)>; rel="end-session"$/.exec(out.headers.get('link') ?? '')![1]!;
    const done = await follow(browser, link, APP);
    expect(done.atSlo.map((a) => [a.method, a.status])).toEqual([['POST', 303]]);
    expect(done.location).toBe(APP);
  });

  it('the IdP’s own logout sends a signed LogoutRequest that ends the Assent session, and the IdP accepts the answer', async () => {
    await idpLogout('POST');
  });

  it('the same on the HTTP-Redirect binding', async () => {
    await idp.close();
    idp = await startIdp('HTTP-Redirect');
    const put = await call(saml(), { method: 'PUT', token: owner, body: { metadataUrl: idp.metadataUrl } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    await idpLogout('GET');
  });
});

/** Signs in, then logs out at the IdP; expects Assent's SLO endpoint to be reached once by `method`. */
async function idpLogout(method: 'GET' | 'POST') {
  const browser = new Browser();
  const token = await signIn(browser);
  expect((await call(`${t.base}/user`, { token })).status).toBe(200);
  const returnTo = `${idp.url}/saml2/idp/metadata.php?logged-out`;
  const done = await follow(
    browser,
    `${idp.url}/saml2/idp/SingleLogoutService.php?ReturnTo=${encodeURIComponent(returnTo)}`,
    returnTo,
  );
  expect(done.atSlo.map((a) => [a.method, a.status])).toEqual([[method, 303]]);
  // The IdP checked Assent's signed LogoutResponse and finished its logout at ReturnTo.
  expect(done.location).toBe(returnTo);
  expect((await call(`${t.base}/user`, { token })).status).toBe(401);
  // The IdP's session ended too: the next sign-in asks for the password again.
  const again = await driveSaml(browser, `${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}`, APP, {
    username: 'alice',
    password: 'alicepass',
  });
  expect(again.sawLogin).toBe(true);
}
