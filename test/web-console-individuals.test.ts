/**
 * The console's individuals pages over HTTP (docs/web.md "Console"): the list with search, paging and
 * count, one individual's consents and history, adding and unsubscribing; who may do what follows the
 * API (`individuals.list`, `individuals.add`, `individuals.remove`, `consents.read`, `consents.history.list`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consentIdOf, consentsUrl, consoleSuite } from './helpers/consent-org.js';

const s = consoleSuite();

const list = (query = '') => `/console/${s.org.orgId}/individuals${query}`;
const one = (userId: string, query = '') => `/console/${s.org.orgId}/individuals/${userId}${query}`;
const apiUsers = () => `${s.t.base}/organizations/${s.org.orgId}/users`;

beforeAll(async () => {
  // Two changes by Carol, so that her history has two events: Email first, then Phone.
  const record = await consentIdOf(s.t, s.org, 'carol');
  const attribute = (id: string) =>
    `${consentsUrl(s.t, s.org, 'carol')}/${record}/purposes/${s.org.marketing.id}/attributes/${id}`;
  const token = s.org.tokens.carol;
  expect(
    (await call(attribute(s.org.marketing.email), { method: 'PATCH', token, body: { consented: 'Allow', days: 0 } }))
      .status,
  ).toBe(200);
  expect(
    (await call(attribute(s.org.marketing.phone), { method: 'PATCH', token, body: { consented: 'AskMe', days: 7 } }))
      .status,
  ).toBe(200);
});

/** Every individual the API lists (all pages), by ID. */
async function apiList(): Promise<Array<{ ID: string; Name: string; Email: string }>> {
  const res = await call(`${apiUsers()}?limit=500`, { token: s.org.tokens.owner });
  expect(res.body.Links.Next).toBeUndefined();
  return res.body.Users;
}
/** The user IDs a list page links to, in order. */
const linkedIds = (html: string) =>
  [...html.matchAll(new RegExp(`href="/console/${s.org.orgId}/individuals/([0-9a-f-]{36})"`, 'g'))].map((m) => m[1]!);
const postForms = (html: string) => html.match(/<form method="post"/g) ?? [];

describe('who may open the individuals pages', () => {
  it('the owner sees the individuals, their count as the API counts them, and the add form', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.get(list());
    expect(res.status).toBe(200);
    const html = await res.text();
    const count = (await call(`${apiUsers()}/count`, { token: s.org.tokens.owner })).body.SubscribeUserCount;
    expect(html).toContain(`${count} individuals are subscribed.`);
    expect(html).toContain('Carol');
    expect(html).toContain('Dave');
    expect(html).toContain('Add an individual');
  });

  it('the DPO sees the list and an individual’s consents and history, with no form but sign-out; posting anyway is 403', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    const listHtml = await (await dpo.get(list())).text();
    expect(listHtml).toContain('Carol');
    expect(postForms(listHtml)).toHaveLength(1);
    expect(listHtml).toContain('action="/console/sign-out"');
    const page = await dpo.get(one(s.org.users.carol!));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Marketing');
    expect(html).toContain('Newest first');
    expect(postForms(html)).toHaveLength(1);
    const token = await dpo.csrf();
    const before = await apiList();
    expect((await dpo.post(list(), { username: 'by-dpo@shop.example', _csrf: token })).status).toBe(403);
    const remove = await dpo.post(one(s.org.users.dave!, '/remove'), { confirm: 'on', _csrf: token });
    expect(remove.status).toBe(403);
    expect(await apiList()).toEqual(before);
  });

  it('the owner reads the consents but, as the API says, not the history', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(one(s.org.users.carol!))).text();
    expect(html).toContain('Marketing');
    expect(html).toContain('Unsubscribe');
    expect(html).not.toContain('Newest first');
    expect(html).toContain('Your roles do not let you read this history');
  });

  it('the developer may list (as the API lets them) but gets a 403 page for an individual’s consents', async () => {
    const developer = await s.as('shop-dev@shop.example');
    const listHtml = await (await developer.get(list())).text();
    expect(listHtml).toContain('Carol');
    expect(listHtml).not.toContain('Add an individual');
    expect((await developer.get(one(s.org.users.carol!))).status).toBe(403);
  });

  it('an individual and staff of another organisation get 403; an unknown individual is 404', async () => {
    const carol = await s.as('carol@shop.example');
    expect((await carol.get(list())).status).toBe(403);
    expect((await carol.get(one(s.org.users.dave!))).status).toBe(403);
    const mallory = await s.as('mallory@other.example');
    expect((await mallory.get(list())).status).toBe(403);
    expect((await mallory.get(one(s.org.users.carol!))).status).toBe(403);
    const owner = await s.as('shop-owner@shop.example');
    expect((await owner.get(one('01234567-89ab-7def-8123-456789abcdef'))).status).toBe(404);
  });
});

describe('the list', () => {
  it('search finds an individual by name and by e-mail, ignoring case', async () => {
    await call(apiUsers(), {
      token: s.org.tokens.admin,
      body: { username: 'frank@shop.example', name: 'Frank', email: 'frank.mail@shop.example' },
    });
    const owner = await s.as('shop-owner@shop.example');
    const byName = await (await owner.get(list('?search=CAROL'))).text();
    expect(linkedIds(byName)).toEqual([s.org.users.carol]);
    const frank = (await apiList()).find((u) => u.Name === 'Frank')!;
    const byMail = await (await owner.get(list('?search=frank.MAIL'))).text();
    expect(linkedIds(byMail)).toEqual([frank.ID]);
    expect(linkedIds(await (await owner.get(list('?search=nobody-here'))).text())).toEqual([]);
  });

  it('paging walks every individual once, in the API’s order', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const seen: string[] = [];
    let path: string | undefined = list('?limit=1');
    while (path) {
      const html = await (await owner.get(path)).text();
      seen.push(...linkedIds(html));
      path = /href="([^"]+)" rel="next"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
      expect(seen.length).toBeLessThan(50);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual((await apiList()).map((u) => u.ID));
  });

  it('bad input is a 400 page: a page size outside 1..500, a search too long', async () => {
    const owner = await s.as('shop-owner@shop.example');
    expect((await owner.get(list('?limit=0'))).status).toBe(400);
    expect((await owner.get(list(`?search=${'x'.repeat(201)}`))).status).toBe(400);
  });

  it('a script in a stored name shows as text', async () => {
    const name = '<script>window.__xss=1</script>';
    const added = await call(apiUsers(), { token: s.org.tokens.owner, body: { username: 'xss@shop.example', name } });
    const owner = await s.as('shop-owner@shop.example');
    for (const path of [list(), one(added.body.User.ID)]) {
      const html = await (await owner.get(path)).text();
      expect(html).toContain('&lt;script>window.__xss=1&lt;/script>');
      expect(html).not.toContain(name);
    }
  });
});

describe('one individual’s history', () => {
  it('is newest first and paged', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    const first = await (await dpo.get(one(s.org.users.carol!, '?limit=1'))).text();
    expect(first).toContain('Marketing · Phone');
    expect(first).not.toContain('Marketing · Email');
    const older = /href="([^"]+)" rel="next">Older changes/.exec(first)![1]!.replaceAll('&amp;', '&');
    const second = await (await dpo.get(older)).text();
    expect(second).toContain('Marketing · Email');
    expect(second).not.toContain('Older changes');
    expect((await dpo.get(one(s.org.users.carol!, '?startid=not-a-seq'))).status).toBe(400);
  });
});

describe('adding and unsubscribing', () => {
  it('the owner adds an individual; the API lists them', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(list(), {
      username: 'grace@shop.example',
      name: 'Grace',
      email: 'grace@shop.example',
      phone: '',
      password: '',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(303);
    const grace = (await apiList()).find((u) => u.Name === 'Grace')!;
    expect(grace.Email).toBe('grace@shop.example');
    // To the list, not Grace's page: an existing account would be invited, and its page would tell.
    expect(res.headers.get('location')).toBe(list('?done=added'));
  });

  it('bad input adds nothing: a taken username, a username too long, a weak password', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const before = await apiList();
    expect((await owner.post(list(), { username: 'carol@shop.example', _csrf: token })).status).toBe(409);
    expect((await owner.post(list(), { username: `${'a'.repeat(250)}@x.example`, _csrf: token })).status).toBe(400);
    const weak = await owner.post(list(), { username: 'henry@shop.example', password: 'password', _csrf: token });
    expect(weak.status).toBe(400);
    expect((await owner.post(list(), { name: 'No username', _csrf: token })).status).toBe(400);
    expect(await apiList()).toEqual(before);
  });

  it('unsubscribing needs the confirmation box; once ticked, the API no longer lists the individual', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const dave = s.org.users.dave!;
    expect((await owner.post(one(dave, '/remove'), { _csrf: token })).status).toBe(400);
    expect((await apiList()).some((u) => u.ID === dave)).toBe(true);
    const res = await owner.post(one(dave, '/remove'), { confirm: 'on', _csrf: token });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(list('?done=removed'));
    expect((await apiList()).some((u) => u.ID === dave)).toBe(false);
    expect((await owner.get(one(dave))).status).toBe(404);
  });
});
