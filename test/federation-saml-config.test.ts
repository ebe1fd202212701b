/**
 * The SAML IdP configuration `{base}/organizations/{orgID}/idp/saml` (docs/federation.md "SAML 2.0"):
 * statuses like `…/idp/open-id`, Owner/Admin only, audit entries, validation that changes nothing,
 * SSRF-safe metadata fetching, and Assent's SP metadata with its certificates rotated with the
 * signing keys.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxTokenTtl, rotateSigningKey } from '../src/identity/tokens/keys.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { type TestKeyPair, testKeyPair } from './helpers/saml-keys.js';

let t: TestAssent;
let owner: string;
let alice: string;
let orgId: string;
let key: TestKeyPair;
let server: http.Server;
let serverUrl: string;
const saml = () => `${t.base}/organizations/${orgId}/idp/saml`;
const certBody = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
const metadataXml = (entityId = 'urn:meta:idp') =>
  `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">` +
  '<md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
  `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certBody(key.certificate)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
  '<md:SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/slo"/>' +
  '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example/post"/>' +
  '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>' +
  '</md:IDPSSODescriptor></md:EntityDescriptor>';

beforeAll(async () => {
  t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
  key = await testKeyPair('config-idp');
  // A loopback metadata host: /ok answers metadata, /redirect sends to the cloud metadata address, /gone is a 404.
  server = http.createServer((req, res) => {
    if (req.url === '/ok')
      res.writeHead(200, { 'content-type': 'application/xml' }).end(metadataXml('urn:fetched:idp'));
    else if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.stop();
});

describe('configuration', () => {
  it('POST 201 from inline metadata, 409 twice; GET 200; PUT 200; DELETE 204 then 404; PUT and GET 404 when none', async () => {
    expect((await call(saml(), { token: owner })).status).toBe(404);
    expect((await call(saml(), { method: 'PUT', token: owner, body: { entityId: 'x' } })).status).toBe(404);
    const created = await call(saml(), { token: owner, body: { metadataXml: metadataXml() } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      metadataUrl: '',
      entityId: 'urn:meta:idp',
      ssoUrl: 'https://idp.example/sso',
      sloUrl: 'https://idp.example/slo',
      signingCertificates: [key.certificate.trim()],
      nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      attributeMapping: { email: 'email', name: 'displayName', phone: 'telephoneNumber' },
      signAuthnRequests: true,
      allowUnsolicited: false,
      spEntityId: `${saml()}/metadata`,
      acsUrl: `${saml()}/acs`,
      spSloUrl: `${saml()}/logout/callback`,
    });
    expect((await call(saml(), { token: owner, body: { metadataXml: metadataXml() } })).status).toBe(409);
    const updated = await call(saml(), {
      method: 'PUT',
      token: owner,
      body: { signAuthnRequests: false, attributeMapping: { email: 'mail' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.attributeMapping).toEqual({ email: 'mail', name: 'displayName', phone: 'telephoneNumber' });
    expect((await call(saml(), { token: owner })).body.signAuthnRequests).toBe(false);
    expect((await call(saml(), { method: 'DELETE', token: owner })).status).toBe(204);
    expect((await call(saml(), { method: 'DELETE', token: owner })).status).toBe(404);
  });

  it('only Owner or Admin may configure: an individual gets 403, no token 401', async () => {
    for (const method of ['POST', 'PUT', 'GET', 'DELETE']) {
      const body = method === 'POST' || method === 'PUT' ? { metadataXml: metadataXml() } : undefined;
      expect((await call(saml(), { method, token: alice, body })).status, method).toBe(403);
      expect((await call(saml(), { method, body })).status, method).toBe(401);
    }
  });

  it('invalid input is a 400 naming the field and changes nothing', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ entityId: 'urn:x', ssoUrl: 'https://idp.example/sso' }, /signingCertificates: at least one/],
      [
        { entityId: 'urn:x', ssoUrl: 'https://idp.example/sso', signingCertificates: ['not a cert'] },
        /signingCertificates\[0\]/,
      ],
      [
        { metadataXml: metadataXml(), nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient' },
        /nameIdFormat: must be one of/,
      ],
      [{ metadataXml: metadataXml(), ssoUrl: 'http://idp.example/sso' }, /ssoUrl: /],
      [
        { metadataXml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${metadataXml()}` },
        /document type declaration/,
      ],
      [{ metadataXml: '<md:EntityDescriptor' }, /not well-formed/],
    ];
    for (const [body, message] of cases) {
      const res = await call(saml(), { token: owner, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.Message).toMatch(message);
    }
    expect((await call(saml(), { token: owner })).status).toBe(404);
  });

  it('the audit log records create, update (changed fields) and delete with the actor', async () => {
    const res = await call(`${t.base}/organizations/${orgId}/audit-log?limit=3`, { token: owner });
    expect(res.body.Entries.map((e: { Action: string }) => e.Action)).toEqual([
      'idp.saml.delete',
      'idp.saml.update',
      'idp.saml.create',
    ]);
    expect(res.body.Entries[1].Detail.fields).toEqual(['attributeMapping', 'signAuthnRequests']);
    const ownerId = (await login(t, 'owner@acme.example', 'owner-passphrase')).User.ID;
    for (const e of res.body.Entries) expect([e.ActorUserID, e.ActorEmail]).toEqual([ownerId, 'owner@acme.example']);
  });
});

describe('metadata URL (SSRF guard)', () => {
  it('is fetched through the guard when saved, and its values used', async () => {
    const res = await call(saml(), { token: owner, body: { metadataUrl: `${serverUrl}/ok` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ metadataUrl: `${serverUrl}/ok`, entityId: 'urn:fetched:idp' });
    expect((await call(saml(), { method: 'DELETE', token: owner })).status).toBe(204);
  });

  it('a private or link-local address is refused before any connection; a redirect is not followed; a 404 is a 400', async () => {
    for (const [metadataUrl, message] of [
      ['https://169.254.169.254/latest/meta-data', /metadataUrl: must not name a loopback, private, link-local/],
      ['https://10.0.0.1/metadata', /metadataUrl: must not name a loopback, private, link-local/],
      [`${serverUrl}/redirect`, /metadataUrl: the metadata could not be fetched/],
      [`${serverUrl}/gone`, /metadataUrl: the metadata could not be fetched/],
    ] as const) {
      const res = await call(saml(), { token: owner, body: { metadataUrl } });
      expect(res.status, metadataUrl).toBe(400);
      expect(res.body.Message).toMatch(message);
    }
    expect((await call(saml(), { token: owner })).status).toBe(404);
  });
});

describe('SP metadata', () => {
  it('is public, names the entity ID, ACS and SLO; rotating the ES256 signing key alone leaves its certificates', async () => {
    expect((await fetch(`${t.base}/organizations/01890000-0000-7000-8000-000000000000/idp/saml/metadata`)).status).toBe(
      404,
    );
    const first = await (await fetch(`${saml()}/metadata`)).text();
    expect(first).toContain(`entityID="${saml()}/metadata"`);
    expect(first).toContain(`Location="${saml()}/acs"`);
    expect(first).toContain(`Location="${saml()}/logout/callback"`);
    const certs = (xml: string) => [...xml.matchAll(/<(?:ds:)?X509Certificate>([^<]+)</g)].map((m) => m[1]);
    expect(certs(first)).toHaveLength(2); // one signing, one encryption
    // The SAML SP keys roll over on their own (test/federation-saml-keys.test.ts): staged first, then switched.
    await rotateSigningKey(t.store.db, t.ctx.master, maxTokenTtl(t.config));
    await t.ctx.keys.reload();
    expect(certs(await (await fetch(`${saml()}/metadata`)).text())).toEqual(certs(first));
  });
});
