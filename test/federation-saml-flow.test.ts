/**
 * SAML 2.0 federation against a real IdP (SimpleSAMLphp on 127.0.0.1, test/helpers/saml-idp.ts),
 * through Assent's HTTP API and a browser-less user agent with a cookie jar: configure from the
 * IdP's metadata URL → authorize (signed AuthnRequest) → IdP login → ACS → Assent code → the
 * existing exchange → API call → single logout (Assent session and IdP session both end).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { Browser } from './helpers/oidc.js';
import { driveSaml, samlIdpAvailable, startSamlIdp, type TestSamlIdp } from './helpers/saml-idp.js';

const APP = 'https://app.example/cb';
const available = samlIdpAvailable();
let t: TestAssent;
let idp: TestSamlIdp;
let owner: string;
let orgId: string;
const saml = () => `${t.base}/organizations/${orgId}/idp/saml`;
const authorize = (state: string) => `${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=${state}`;
const exchange = (code: string) =>
  call(`${t.base}/organizations/${orgId}/idp/open-id/exchange?redirect_uri=${encodeURIComponent(APP)}&code=${code}`, {
    method: 'POST',
  });

describe.skipIf(!available)('SAML sign-in against SimpleSAMLphp', () => {
  beforeAll(async () => {
    t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
    orgId = t.ids.organisations.acme!.id;
    owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
    const meta = await fetch(`${saml()}/metadata`);
    expect(meta.status).toBe(200);
    expect(meta.headers.get('content-type')).toContain('application/samlmetadata+xml');
    const xml = await meta.text();
    const cert = /<(?:ds:)?X509Certificate>([^<]+)</.exec(xml)![1]!;
    expect(xml).toContain(`entityID="${saml()}/metadata"`);
    idp = await startSamlIdp({
      entityId: `${saml()}/metadata`,
      acsUrl: `${saml()}/acs`,
      sloUrl: `${saml()}/logout/callback`,
      certificate: `-----BEGIN CERTIFICATE-----\n${cert}\n-----END CERTIFICATE-----\n`,
    });
    const created = await call(saml(), { token: owner, body: { metadataUrl: idp.metadataUrl } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      entityId: 'urn:test:idp',
      ssoUrl: `${idp.url}/saml2/idp/SSOService.php`,
      sloUrl: `${idp.url}/saml2/idp/SingleLogoutService.php`,
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      signAuthnRequests: true,
      allowUnsolicited: false,
      acsUrl: `${saml()}/acs`,
    });
    const uris = await call(`${t.base}/organizations/${orgId}/idp/open-id/app-redirect-uris`, {
      method: 'PUT',
      token: owner,
      body: { RedirectURIs: [APP] },
    });
    expect(uris.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await idp?.close();
    await t?.stop();
  });

  it('authorize → IdP login → ACS → code → exchange → API call → single logout ends both sessions', async () => {
    const browser = new Browser();
    const start = await browser.request(authorize('s1'));
    expect(start.status).toBe(302);
    const sso = new URL(start.location!);
    expect(sso.origin + sso.pathname).toBe(`${idp.url}/saml2/idp/SSOService.php`);
    expect(sso.searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect(sso.searchParams.get('Signature')).toBeTruthy();
    const signIn = await driveSaml(browser, start.location!, APP, { username: 'alice', password: 'alicepass' });
    expect(signIn.location, signIn.last).toBeTruthy();
    expect(signIn.sawLogin).toBe(true);
    const back = new URL(signIn.location!).searchParams;
    expect(back.get('state')).toBe('s1');
    expect(back.get('error')).toBeNull();
    const code = back.get('code')!;
    expect(code).toMatch(/^asc_/);
    const session = await exchange(code);
    expect(session.status, JSON.stringify(session.body)).toBe(200);
    expect(session.body.User).toMatchObject({ Name: 'Alice Example', Email: 'alice@idp.example' });
    const token = session.body.Token.access_token as string;
    expect((await call(`${t.base}/user`, { token })).status).toBe(200);
    expect((await exchange(code)).status).toBe(400); // single use

    const links = rowsOf<{ issuer: string; subject: string }>(
      await t.store.db.execute(
        sql`SELECT issuer, subject FROM federated_identities WHERE user_id = ${session.body.User.ID as string}`,
      ),
    );
    expect(links).toHaveLength(1);
    expect(links[0]!.issuer).toBe('urn:test:idp');
    expect(links[0]!.subject).not.toContain('alice@'); // a persistent NameID, not the e-mail address

    const out = await call(`${saml()}/logout?redirect_uri=${encodeURIComponent(APP)}`, { method: 'POST', token });
    expect(out.status).toBe(204);
    expect((await call(`${t.base}/user`, { token })).status).toBe(401); // the Assent session ended at once
    const link = /^<([^>]+)>; rel="end-session"$/.exec(out.headers.get('link') ?? '')?.[1];
    expect(link).toMatch(new RegExp(`^${idp.url}/saml2/idp/SingleLogoutService.php\\?SAMLRequest=`));
    let atIdp = await browser.request(link!);
    for (let i = 0; i < 5 && atIdp.location?.startsWith(idp.url); i++) atIdp = await browser.request(atIdp.location);
    expect(atIdp.location).toMatch(new RegExp(`^${saml()}/logout/callback\\?SAMLResponse=`));
    expect(new URL(atIdp.location!).searchParams.get('Signature')).toBeTruthy(); // the IdP signs its LogoutResponse
    const done = await browser.request(atIdp.location!);
    expect(done.status, done.body).toBe(303);
    expect(done.location).toBe(APP);

    // The IdP's session ended too: the next sign-in asks for the password again.
    const again = await driveSaml(browser, authorize('s2'), APP, { username: 'alice', password: 'alicepass' });
    expect(again.sawLogin).toBe(true);
    const code2 = new URL(again.location!).searchParams.get('code')!;
    const second = await exchange(code2);
    expect(second.body.User.ID).toBe(session.body.User.ID); // the same link: (organisation, entity ID, NameID)
  });

  it('links by NameID, never by e-mail: an IdP user claiming an existing local address gets a new account', async () => {
    const browser = new Browser();
    const res = await driveSaml(browser, authorize('b'), APP, { username: 'bob', password: 'bobpass' });
    const code = new URL(res.location!).searchParams.get('code')!;
    const session = await exchange(code);
    expect(session.status).toBe(200);
    const alice = await login(t, 'alice@acme.example', 'alice-passphrase');
    expect(session.body.User.ID).not.toBe(alice.User.ID);
  });

  it('an AuthnRequest Assent did not sign is refused by the IdP that requires signed requests', async () => {
    const browser = new Browser();
    const start = await browser.request(authorize('u'));
    const tampered = new URL(start.location!);
    tampered.searchParams.delete('Signature');
    const res = await browser.request(tampered.href);
    expect(res.location ?? '').not.toContain('/acs');
    expect(res.body).not.toContain('name="password"');
    expect(res.body).not.toContain('SAMLResponse');
    expect(res.body).toMatch(/signature/i);
  });
});
