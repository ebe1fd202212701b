/**
 * The console over HTTP (docs/web.md "Console"): who may open which page and use which control
 * follows the API's access-policy rows; changes go through the API's services and validation.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import type { WebClient } from './helpers/web-client.js';

const s = consoleSuite();

const orgPage = (c: WebClient) => c.get(`/console/${s.org.orgId}/organisation`);

describe('console access follows the API access policy', () => {
  it('an owner sees the organisation with its purposes and attributes, and the controls to change them', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await orgPage(owner);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Marketing');
    expect(html).toContain('Add a purpose');
    expect(html).toContain('Add a data attribute');
    expect(html).toContain('Save retention');
  });

  it('a DPO sees the same page and finds no control that changes anything', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    const html = await (await orgPage(dpo)).text();
    expect(html).toContain('Marketing');
    // The only form is the header's sign-out.
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain('action="/console/sign-out"');
    // And the API's rule holds when the DPO posts anyway.
    const res = await dpo.post(`/console/${s.org.orgId}/purposes`, { name: 'By the DPO', _csrf: await dpo.csrf() });
    expect(res.status).toBe(403);
  });

  it('an individual’s session cannot open the console: 403 on its home and on the organisation', async () => {
    const carol = await s.as('carol@shop.example');
    expect((await carol.get('/console')).status).toBe(403);
    expect((await orgPage(carol)).status).toBe(403);
  });

  it('staff of another organisation get 403 here, and an unknown organisation is 404', async () => {
    const mallory = await s.as('mallory@other.example');
    expect((await orgPage(mallory)).status).toBe(403);
    expect((await mallory.get('/console/01234567-89ab-7def-8123-456789abcdef/organisation')).status).toBe(404);
    const home = await (await mallory.get('/console')).text();
    expect(home).toContain(`/console/${s.org.otherOrgId}/organisation`);
    expect(home).not.toContain(s.org.orgId);
  });
});

describe('console changes go through the API’s services', () => {
  it('an owner adds a purpose and an attribute; the API sees both', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const p = await owner.post(`/console/${s.org.orgId}/purposes`, {
      name: 'Research',
      description: 'Product research',
      policyurl: 'https://shop.example/research',
      _csrf: token,
    });
    expect(p.status).toBe(303);
    const purposes = await call(`${s.t.base}/organizations/${s.org.orgId}/purposes`, { token: s.org.tokens.owner });
    const research = purposes.body.Purposes.find((x: any) => x.Name === 'Research');
    expect(research).toMatchObject({ Description: 'Product research', LawfulUsage: false });
    const a = await owner.post(`/console/${s.org.orgId}/attributes`, {
      consent: 'Age',
      purposeids: research.ID,
      _csrf: token,
    });
    expect(a.status).toBe(303);
    const templates = await call(`${s.t.base}/organizations/${s.org.orgId}/templates`, { token: s.org.tokens.owner });
    expect(templates.body.Templates.find((x: any) => x.Consent === 'Age').PurposeIDs).toEqual([research.ID]);
  });

  it('the API’s validation applies: a bad policy URL is a 400 page and nothing is added', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`/console/${s.org.orgId}/purposes`, {
      name: 'Bad',
      policyurl: 'javascript:alert(1)',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    const purposes = await call(`${s.t.base}/organizations/${s.org.orgId}/purposes`, { token: s.org.tokens.owner });
    expect(purposes.body.Purposes.some((x: any) => x.Name === 'Bad')).toBe(false);
  });

  it('a script in a purpose’s name shows as text', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const name = '<script>window.__xss=1</script>';
    await owner.post(`/console/${s.org.orgId}/purposes`, { name, _csrf: await owner.csrf() });
    const html = await (await orgPage(owner)).text();
    expect(html).toContain('&lt;script>window.__xss=1&lt;/script>');
    expect(html).not.toContain(name);
  });

  it('a console post without the CSRF token is refused (403) and changes nothing', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`/console/${s.org.orgId}/purposes`, { name: 'No token' });
    expect(res.status).toBe(403);
    const purposes = await call(`${s.t.base}/organizations/${s.org.orgId}/purposes`, { token: s.org.tokens.owner });
    expect(purposes.body.Purposes.some((x: any) => x.Name === 'No token')).toBe(false);
  });
});
