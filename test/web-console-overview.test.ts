/**
 * The console's consent overview over HTTP (docs/web.md "Console"): the counts and the trend are
 * the API's (`consents.overview`, `consents.trend`), drawn as an SVG chart, and the consented users
 * of a purpose or an attribute are the API's pages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consentsUrl, consoleSuite } from './helpers/consent-org.js';

const s = consoleSuite();

beforeAll(async () => {
  // Carol allows the e-mail attribute of Marketing; Dave asks to be asked.
  for (const [who, value] of [
    ['carol', 'Allow'],
    ['dave', 'AskMe'],
  ] as const) {
    const record = await call(consentsUrl(s.t, s.org, who), { token: s.org.tokens[who] });
    const url = `${consentsUrl(s.t, s.org, who)}/${record.body.ID}/purposes/${s.org.marketing.id}/attributes/${s.org.marketing.email}`;
    const res = await call(url, { method: 'PATCH', token: s.org.tokens[who], body: { consented: value } });
    expect(res.status).toBe(200);
  }
});

describe('console consent overview', () => {
  it('shows the API’s counts per purpose and attribute, and the trend as a titled SVG chart', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.get(`/console/${s.org.orgId}/consents`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const api = await call(`${s.t.base}/organizations/${s.org.orgId}/consents/overview`, { token: s.org.tokens.owner });
    const email = api.body.Purposes.find((p: any) => p.ID === s.org.marketing.id).Attributes.find(
      (a: any) => a.ID === s.org.marketing.email,
    );
    expect(email).toMatchObject({ Allow: 1, AskMe: 1 });
    const row = new RegExp(
      `attributeid=${s.org.marketing.email}">Email</a></th><td>${email.Allow}</td><td>${email.Disallow}</td><td>${email.AskMe}</td><td>${email.Undecided}</td>`,
    );
    expect(html).toMatch(row);
    expect(html).toMatch(/<svg viewBox="0 0 640 200" role="img" aria-labelledby="trend-title trend-desc"/);
    expect(html).toContain('<polyline');
    expect(html).toMatch(/The last 90 days/);
  });

  it('the consented users of an attribute are the API’s page', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    const html = await (
      await dpo.get(
        `/console/${s.org.orgId}/consents/users?purposeid=${s.org.marketing.id}&attributeid=${s.org.marketing.email}`,
      )
    ).text();
    const api = await call(
      `${s.t.base}/organizations/${s.org.orgId}/purposes/${s.org.marketing.id}/attributes/${s.org.marketing.email}/consented/users`,
      { token: s.org.tokens.owner },
    );
    const names: string[] = api.body.Users.map((u: any) => u.Name);
    expect(names).toContain('Carol');
    for (const name of names) expect(html).toContain(`>${name}</a>`);
    expect(html.match(/<tr><td><a href="\/console\//g) ?? []).toHaveLength(names.length);
  });

  it('an individual and staff of another organisation get 403; a bad purpose is a 404 page', async () => {
    expect((await (await s.as('carol@shop.example')).get(`/console/${s.org.orgId}/consents`)).status).toBe(403);
    expect((await (await s.as('mallory@other.example')).get(`/console/${s.org.orgId}/consents`)).status).toBe(403);
    const owner = await s.as('shop-owner@shop.example');
    const bad = await owner.get(
      `/console/${s.org.orgId}/consents/users?purposeid=01234567-89ab-7def-8123-456789abcdef`,
    );
    expect(bad.status).toBe(404);
    expect((await owner.get(`/console/${s.org.orgId}/consents?days=0`)).status).toBe(400);
  });
});
