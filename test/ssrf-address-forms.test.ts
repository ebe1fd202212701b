/**
 * The SSRF guard classifies every IPv6 spelling that embeds an IPv4 address by the address it
 * embeds (src/platform/net/address.ts; OWASP ASVS 5.0 V1.3.6): a literal naming loopback, private or
 * link-local IPv4 space through IPv4-compatible, IPv4-mapped, IPv4-translated, NAT64, 6to4 or Teredo
 * form is refused when an IdP URL or a webhook URL is saved (400, nothing changed), and the same
 * forms embedding a public address are accepted. Saving contacts nothing, so no packet leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

/** Non-public addresses in every form the resolver can return (and what each one hides). */
const REFUSED: Record<string, string> = {
  '[::127.0.0.1]': 'IPv4-compatible loopback',
  '[::a9fe:a9fe]': 'IPv4-compatible 169.254.169.254 (metadata), hex spelling',
  '[::]': 'unspecified',
  '[::ffff:169.254.169.254]': 'IPv4-mapped metadata',
  '[::ffff:0:a00:1]': 'IPv4-translated 10.0.0.1 (RFC 6145)',
  '[64:ff9b::10.0.0.1]': 'NAT64 well-known prefix, 10.0.0.1',
  '[64:ff9b::7f00:1]': 'NAT64 well-known prefix, 127.0.0.1',
  '[64:ff9b:1::808:808]': 'local-use NAT64 prefix (RFC 8215)',
  '[2002:a9fe:a9fe::1]': '6to4 of 169.254.169.254',
  '[2002:7f00:1::]': '6to4 of 127.0.0.1',
  '[2001:0:4136:e378:8000:63bf:f5ff:fffe]': 'Teredo, client 10.0.0.1 (XORed)',
  '[2001:0:a00:1:8000:63bf:f7f7:f7f7]': 'Teredo, server 10.0.0.1',
};
/** The same forms embedding public addresses (8.8.8.8, 65.54.227.120). */
const ACCEPTED = [
  '[::ffff:8.8.8.8]',
  '[64:ff9b::8.8.8.8]',
  '[2002:808:808::1]',
  '[2001:0:4136:e378:8000:63bf:f7f7:f7f7]',
  '[2606:4700::1111]',
];

let t: TestAssent;
let owner: string;
let org: string;
const idp = () => `${t.base}/organizations/${org}/idp/open-id`;
const transports = () => `${t.base}/organizations/${org}/notification-transports`;

beforeAll(async () => {
  t = await startAssent();
  org = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  const created = await call(idp(), {
    token: owner,
    body: {
      issuer: 'https://idp.example',
      authorizationUrl: 'https://idp.example/authorize',
      tokenUrl: 'https://idp.example/token',
      jwksUrl: 'https://idp.example/jwks',
      userInfoUrl: '',
      logoutUrl: '',
      clientId: 'c',
      clientSecret: 's',
      disableUserInfo: true,
      defaultScope: 'openid',
    },
  });
  expect(created.status).toBe(201);
  expect(
    (await call(transports(), { method: 'PUT', token: owner, body: { webhook: { url: 'https://hooks.example/in' } } }))
      .status,
  ).toBe(200);
});
afterAll(async () => {
  await t?.stop();
});

describe('SSRF guard: IPv6 forms that embed an IPv4 address', () => {
  it('an IdP jwksUrl naming a special-use address in any IPv6 form is refused (400) and nothing changes', async () => {
    for (const [host, what] of Object.entries(REFUSED)) {
      const res = await call(idp(), { method: 'PUT', token: owner, body: { jwksUrl: `https://${host}/jwks` } });
      expect(res.status, `${host}: ${what}`).toBe(400);
      expect(res.body.Message, host).toMatch(
        /jwksUrl: must not name a loopback, private, link-local or other special-use address/,
      );
    }
    expect((await call(idp(), { token: owner })).body.jwksUrl).toBe('https://idp.example/jwks');
  });

  it('a webhook URL naming a special-use address in any IPv6 form is refused (400) and nothing changes', async () => {
    for (const [host, what] of Object.entries(REFUSED)) {
      const res = await call(transports(), {
        method: 'PUT',
        token: owner,
        body: { webhook: { url: `https://${host}/hook` } },
      });
      expect(res.status, `${host}: ${what}`).toBe(400);
      expect(res.body.Message, host).toMatch(/^webhook\.url /);
    }
    expect((await call(transports(), { token: owner })).body.Webhook.URL).toBe('https://hooks.example/in');
  });

  it('the same forms embedding a public address are accepted (IPv6-only hosts reach IPv4 sites through NAT64)', async () => {
    for (const host of ACCEPTED) {
      expect(
        (await call(idp(), { method: 'PUT', token: owner, body: { jwksUrl: `https://${host}/jwks` } })).status,
        host,
      ).toBe(200);
      expect(
        (await call(transports(), { method: 'PUT', token: owner, body: { webhook: { url: `https://${host}/hook` } } }))
          .status,
        host,
      ).toBe(200);
    }
  });
});
