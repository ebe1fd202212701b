/**
 * The code exchange needs no credential, so its errors must not map Assent's network for an
 * anonymous caller (ASVS 5.0 V16.5.1): when the provider cannot be reached (a token endpoint whose
 * name resolves to 10.0.0.1; https to a port that speaks plain http, EPROTO) the caller gets a 502
 * `temporarily_unavailable` with a fixed message, and the detail goes to the log only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { configureFakeIdp, type FakeIdp, startDns, startFakeIdp } from './helpers/oidc.js';

const APP = 'https://app.example/cb';
const INTERNAL = 'token.internal.test';
let t: TestAssent;
let fake: FakeIdp;
let dns: Awaited<ReturnType<typeof startDns>>;
let owner: string;
let orgId: string;
const idp = () => `${t.base}/organizations/${orgId}/idp/open-id`;
const exchange = () =>
  call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=provider-code`, { method: 'POST' });

beforeAll(async () => {
  dns = await startDns();
  t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1', ASSENT_DNS_SERVERS: dns.server });
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  fake = await startFakeIdp('assent-client');
  await configureFakeIdp(idp(), owner, fake, APP);
});
afterAll(async () => {
  await fake?.close();
  await dns?.close();
  await t?.stop();
});

describe('code exchange errors tell the caller no network detail', () => {
  const cases: [string, () => string, RegExp][] = [
    [
      'a token endpoint whose name resolves to a private address',
      () => `https://${INTERNAL}/token`,
      /non-public|10\.0\.0\.1|internal\.test|resolve/i,
    ],
    [
      'https to a port that speaks plain http (EPROTO)',
      () => `https://127.0.0.1:${new URL(fake.url).port}/token`,
      /EPROTO|network error|127\.0\.0\.1|ssl|tls/i,
    ],
  ];
  for (const [name, tokenUrl, detail] of cases) {
    it(`${name}: 502 temporarily_unavailable with a fixed message`, async () => {
      expect((await call(idp(), { method: 'PUT', token: owner, body: { tokenUrl: tokenUrl() } })).status).toBe(200);
      const res = await exchange();
      expect(res.status).toBe(502);
      expect(res.body).toEqual({
        Code: 502,
        Message: 'The identity provider could not be reached; try again later',
        error: 'temporarily_unavailable',
        error_description: 'The identity provider could not be reached; try again later',
      });
      expect(JSON.stringify(res.body)).not.toMatch(detail);
    });
  }
});
