import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
const usersUrl = (query = '') => `${t.base}/organizations/${org.orgId}/users${query}`;

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
});
afterAll(() => t?.stop());

describe('creating and subscribing individuals', () => {
  it('creates a new individual with a consent record (201), who can then sign in', async () => {
    const res = await call(usersUrl(), {
      token: org.tokens.admin,
      body: { username: 'Erin@Shop.example', name: 'Erin', email: 'erin@shop.example', password: 'erin-passphrase' },
    });
    expect(res.status).toBe(201);
    expect(res.body.User).toMatchObject({ Name: 'Erin', Email: 'erin@shop.example', Phone: '' });
    const session = await login(t, 'erin@shop.example', 'erin-passphrase');
    const record = await call(`${t.base}/organizations/${org.orgId}/users/${res.body.User.ID}/consents`, {
      token: session.Token.access_token,
    });
    expect(record.status).toBe(200);
    expect(record.body.ID).toBe(res.body.ConsentID);
  });

  it('a user subscribes themselves by their own ID (201), and again is a 200 with the same record', async () => {
    const first = await call(usersUrl(), { token: org.tokens.mallory, body: { userid: org.users.mallory } });
    expect(first.status).toBe(201);
    const again = await call(usersUrl(), { token: org.tokens.mallory, body: { userid: org.users.mallory } });
    expect(again.status).toBe(200);
    expect(again.body.ConsentID).toBe(first.body.ConsentID);
    const staff = await call(usersUrl(), { token: org.tokens.owner, body: { userid: org.users.mallory } });
    expect(staff.status).toBe(200);
    expect(staff.body.ConsentID).toBe(first.body.ConsentID);
  });

  it('a taken username is a 409, an unknown userid a 404, and neither or both a 400; nothing is created', async () => {
    const before = (await call(usersUrl('/count'), { token: org.tokens.owner })).body.SubscribeUserCount;
    expect((await call(usersUrl(), { token: org.tokens.owner, body: { username: 'carol@shop.example' } })).status).toBe(
      409,
    );
    expect(
      (await call(usersUrl(), { token: org.tokens.owner, body: { userid: '01a20000-0000-7000-8000-000000000000' } }))
        .status,
    ).toBe(404);
    expect((await call(usersUrl(), { token: org.tokens.owner, body: { userid: 'nonsense' } })).status).toBe(404);
    expect((await call(usersUrl(), { token: org.tokens.owner, body: {} })).status).toBe(400);
    expect(
      (
        await call(usersUrl(), {
          token: org.tokens.owner,
          body: { userid: org.users.carol, username: 'x@shop.example' },
        })
      ).status,
    ).toBe(400);
    expect(
      (await call(usersUrl(), { token: org.tokens.owner, body: { username: 'short@shop.example', password: 'short' } }))
        .status,
    ).toBe(400);
    expect((await call(usersUrl('/count'), { token: org.tokens.owner })).body.SubscribeUserCount).toBe(before);
  });

  it('only the Owner or Admin may add; the Developer and individuals get a 403', async () => {
    for (const who of ['developer', 'dpo', 'carol']) {
      expect(
        (await call(usersUrl(), { token: org.tokens[who], body: { username: `${who}-made@shop.example` } })).status,
        who,
      ).toBe(403);
    }
  });
});

describe('listing and counting', () => {
  it('pages by user ID with an exclusive startid and absolute Links; Next only while more exist', async () => {
    const count = (await call(usersUrl('/count'), { token: org.tokens.developer })).body.SubscribeUserCount;
    expect(count).toBe(4); // carol, dave, erin, mallory
    const seen: string[] = [];
    let url: string | undefined = usersUrl('?limit=3');
    while (url) {
      const res = await call(url, { token: org.tokens.developer });
      expect(res.status).toBe(200);
      expect(res.body.Links.Self).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/organizations\//);
      seen.push(...res.body.Users.map((u: any) => u.ID));
      url = res.body.Links.Next;
    }
    expect(seen).toHaveLength(4);
    expect([...seen].sort()).toEqual(seen);
    const after = await call(usersUrl(`?startid=${seen[0]}`), { token: org.tokens.developer });
    expect(after.body.Users.map((u: any) => u.ID)).toEqual(seen.slice(1));
    expect(after.body.Links.Next).toBeUndefined();
  });

  it('a limit outside 1..500 is a 400', async () => {
    for (const q of ['?limit=0', '?limit=501', '?limit=-1', '?limit=many'])
      expect((await call(usersUrl(q), { token: org.tokens.owner })).status, q).toBe(400);
  });

  it('search keeps users whose name or e-mail contains the text, ignoring case; Next keeps the search', async () => {
    const names = async (q: string) =>
      (await call(usersUrl(q), { token: org.tokens.dpo })).body.Users.map((u: any) => u.Name).sort();
    expect(await names('?search=ERIN')).toEqual(['Erin']);
    expect(await names(`?search=${encodeURIComponent('@shop.EXAMPLE')}`)).toEqual(['Erin']);
    expect(await names('?search=%20%20')).toHaveLength(4);
    // `%` and `_` are plain characters, not LIKE wildcards.
    expect(await names('?search=%25')).toEqual([]);
    expect(await names('?search=_')).toEqual([]);
    const seen: string[] = [];
    let url: string | undefined = usersUrl('?search=e&limit=1');
    while (url) {
      const res = await call(url, { token: org.tokens.dpo });
      seen.push(...res.body.Users.map((u: any) => u.Name));
      url = res.body.Links.Next;
      if (url) expect(new URL(url).searchParams.get('search')).toBe('e');
    }
    expect(seen.sort()).toEqual(['Dave', 'Erin']);
    expect((await call(usersUrl(`?search=${'x'.repeat(201)}`), { token: org.tokens.dpo })).status).toBe(400);
  });
});

describe('unsubscribing', () => {
  it('removes the subscription but keeps the consent record and its history; re-subscribing restores both', async () => {
    const consents = consentsUrl(t, org, 'dave');
    const record = (await call(consents, { token: org.tokens.dave })).body;
    const email = `${consents}/${record.ID}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`;
    expect(
      (await call(email, { method: 'PATCH', token: org.tokens.dave, body: { consented: 'Allow', days: 0 } })).status,
    ).toBe(200);
    expect((await call(usersUrl(`/${org.users.dave}`), { method: 'DELETE', token: org.tokens.admin })).status).toBe(
      204,
    );
    expect((await call(consents, { token: org.tokens.dave })).status).toBe(404);
    expect((await call(`${consents}/history`, { token: org.tokens.dpo })).body.Events).toHaveLength(1);
    expect((await call(usersUrl(`/${org.users.dave}`), { method: 'DELETE', token: org.tokens.admin })).status).toBe(
      404,
    );
    // Once unsubscribed, Dave is no longer the organisation's to re-enrol: only his own act brings him back.
    expect((await call(usersUrl(), { token: org.tokens.admin, body: { userid: org.users.dave } })).status).toBe(404);
    const back = await call(usersUrl(), { token: org.tokens.dave, body: { userid: org.users.dave } });
    expect(back.status).toBe(201);
    expect(back.body.ConsentID).toBe(record.ID);
    const restored = await call(consents, { token: org.tokens.dave });
    expect(restored.body.ConsentsAndPurposes[0].Consents[0].Status.Consented).toBe('Allow');
  });

  it('only the Owner or Admin may unsubscribe', async () => {
    expect(
      (await call(usersUrl(`/${org.users.carol}`), { method: 'DELETE', token: org.tokens.developer })).status,
    ).toBe(403);
    expect((await call(usersUrl(`/${org.users.carol}`), { method: 'DELETE', token: org.tokens.carol })).status).toBe(
      403,
    );
  });
});
