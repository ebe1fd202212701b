/**
 * The access policy across organisations (docs/access-policy.md "Access policy"): an organisation sees only what
 * it needs of the individuals it manages, and nothing of another organisation's. Carol is
 * subscribed only to "shop" (A); the Owner of "bravo" (B) holds every role there, so that no
 * answer below is a 403 of a missing role: every route returning a user or a user's data answers
 * B's Owner, token or API key, with a 404 or a page without her: individuals, image, consents,
 * history, consented-user pages, anonymous upgrade. Once Carol subscribes herself to B, B sees her
 * in its own listings and its own record of her, and still nothing of A's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { call, login } from './helpers/assent.js';
import { consentIdOf, consentSuite, consentsUrl } from './helpers/consent-org.js';
import { solid } from './helpers/images.js';

const s = consentSuite();
let bravo: string;
let lawful: string;
let lawfulAttribute: string;
const b: { token: string; apiKey: string } = { token: '', apiKey: '' };
let carolImage: string;
let carolShopConsentId: string;

beforeAll(async () => {
  const { t, org } = s;
  const ids = await runImport(
    t.store.db,
    {
      organisations: [
        {
          key: 'bravo',
          name: 'Bravo',
          purposes: [
            { key: 'service', name: 'Service', lawfulUsage: true, attributes: [{ key: 'email', name: 'Email' }] },
          ],
          admins: [
            {
              username: 'owner@bravo.example',
              password: 'bravo-owner-passphrase',
              roles: ['owner', 'admin', 'dpo', 'developer'],
            },
          ],
        },
      ],
    },
    t.config.argon2,
    redirectUriImport,
  );
  bravo = ids.organisations.bravo!.id;
  lawful = ids.organisations.bravo!.purposes.service!.id;
  lawfulAttribute = ids.organisations.bravo!.purposes.service!.attributes.email!;
  const owner = await login(t, 'owner@bravo.example', 'bravo-owner-passphrase');
  b.token = owner.Token.access_token;
  b.apiKey = owner.User.APIKey;
  // Carol's data at A: a consent and a profile image.
  carolShopConsentId = await consentIdOf(t, org, 'carol');
  const email = `${consentsUrl(t, org, 'carol')}/${carolShopConsentId}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`;
  expect(
    (await call(email, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'Allow', days: 0 } })).status,
  ).toBe(200);
  const form = new FormData();
  form.append('userimage', new Blob([await solid(16, 16).jpeg().toBuffer()], { type: 'image/jpeg' }), 'carol.jpg');
  const upload = await fetch(`${t.base}/user/image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.tokens.carol}` },
    body: form,
  });
  expect(upload.status).toBe(200);
  carolImage = ((await upload.json()) as { User: { ImageID: string } }).User.ImageID;
});

/** B's Owner, by access token and by API key. */
const asB = (): Array<{ token: string; scheme?: string }> => [
  { token: b.token },
  { token: b.apiKey, scheme: 'ApiKey' },
];
const bUrl = (path: string) => `${s.t.base}/organizations/${bravo}${path}`;

describe('cross-organisation: the Owner of B sees nothing of a user subscribed only to A', () => {
  it('individuals: not listed or counted; enrolling, naming or removing her is the 404 of an unknown ID', async () => {
    const carol = s.org.users.carol!;
    for (const cred of asB()) {
      expect((await call(bUrl('/users'), cred)).body.Users).toEqual([]);
      expect((await call(bUrl('/users/count'), cred)).body.SubscribeUserCount).toBe(0);
      expect((await call(bUrl('/users'), { ...cred, body: { userid: carol } })).status).toBe(404);
      expect((await call(bUrl(`/users/${carol}`), { ...cred, method: 'DELETE' })).status).toBe(404);
      expect(
        (await call(bUrl(`/users/${carol}/upgrade`), { ...cred, body: { username: 'taken-over@bravo.example' } }))
          .status,
      ).toBe(404);
    }
    expect((await call(bUrl('/users'), { token: b.token })).body.Users).toEqual([]);
  });

  it('image: reading and changing her image are 404s', async () => {
    const carol = s.org.users.carol!;
    for (const cred of asB()) {
      expect((await call(`${s.t.base}/users/${carol}/image/${carolImage}`, cred)).status).toBe(404);
      expect((await call(`${s.t.base}/users/${carol}/image`, { ...cred, method: 'DELETE' })).status).toBe(404);
    }
    // A's Owner, whose organisation she joined, sees it.
    expect((await call(`${s.t.base}/users/${carol}/image/${carolImage}`, { token: s.org.tokens.owner })).status).toBe(
      200,
    );
  });

  it('consents and history: her records under B are 404s, A’s record ID under B too; consented-user pages do not list her', async () => {
    const carol = s.org.users.carol!;
    const record = bUrl(`/users/${carol}/consents`);
    for (const cred of asB()) {
      for (const url of [
        record,
        `${record}/${carolShopConsentId}`,
        `${record}/${carolShopConsentId}/purposes/${s.org.marketing.id}`,
        `${record}/history`,
        bUrl(`/consents/history?at=${encodeURIComponent(new Date().toISOString())}&userid=${carol}`),
      ]) {
        expect((await call(url, cred)).status, url).toBe(404);
      }
      const change = `${record}/${carolShopConsentId}/purposes/${s.org.marketing.id}/attributes/${s.org.marketing.email}`;
      // A staff session never changes consents (403 whoever is named); B's API key gets the 404.
      expect((await call(change, { ...cred, method: 'PATCH', body: { consented: 'Disallow', days: 0 } })).status).toBe(
        cred.scheme ? 404 : 403,
      );
      for (const url of [
        bUrl(`/purposes/${lawful}/consented/users`),
        bUrl(`/purposes/${lawful}/attributes/${lawfulAttribute}/consented/users`),
      ]) {
        expect((await call(url, cred)).body.Users, url).toEqual([]);
      }
      // A's purpose named under B's path is not B's.
      expect((await call(bUrl(`/purposes/${s.org.marketing.id}/consented/users`), cred)).status).toBe(404);
    }
    // Her consent at A is unchanged.
    const shop = await call(consentsUrl(s.t, s.org, 'carol'), { token: s.org.tokens.carol });
    expect(
      shop.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === s.org.marketing.id).Consents[0].Status.Consented,
    ).toBe('Allow');
  });

  it('A’s paths: B’s Owner holds no role in A and gets a 403 naming nothing of her', async () => {
    const carol = s.org.users.carol!;
    for (const url of [
      `${s.t.base}/organizations/${s.org.orgId}/users`,
      consentsUrl(s.t, s.org, 'carol'),
      `${consentsUrl(s.t, s.org, 'carol')}/history`,
    ]) {
      const res = await call(url, { token: b.token });
      expect(res.status, url).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain(carol);
    }
  });

  it('after subscribing herself to B, B sees her and its own record of her, still nothing of A’s', async () => {
    const carol = s.org.users.carol!;
    const joined = await call(bUrl('/users'), { token: s.org.tokens.carol, body: { userid: carol } });
    expect(joined.status).toBe(201);
    expect(joined.body.ConsentID).not.toBe(carolShopConsentId);
    expect((await call(bUrl('/users'), { token: b.token })).body.Users.map((u: { ID: string }) => u.ID)).toEqual([
      carol,
    ]);
    const record = await call(bUrl(`/users/${carol}/consents`), { token: b.token });
    expect(record.status).toBe(200);
    expect(record.body.ID).toBe(joined.body.ConsentID);
    expect(record.body.ConsentsAndPurposes.map((p: any) => p.Purpose.ID)).toEqual([lawful]);
    expect((await call(bUrl(`/users/${carol}/consents/${carolShopConsentId}`), { token: b.token })).status).toBe(404);
    expect(
      (await call(bUrl(`/purposes/${lawful}/consented/users`), { token: b.token })).body.Users.map(
        (u: { ID: string }) => u.ID,
      ),
    ).toEqual([carol]);
  });
});
