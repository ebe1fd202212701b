/**
 * Refused console forms (docs/web.md "Refused forms"): a form the API's schema or its service refuses
 * answers its own page again, console-branded, with the refusal's status, the values as typed
 * (never a password, key or secret), and the error next to the field that caused it
 * (`aria-invalid`, `aria-describedby`); nothing changes.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import type { WebClient } from './helpers/web-client.js';

const s = consoleSuite();
const at = (path: string) => `/console/${s.org.orgId}${path}`;
const api = (path: string) => `${s.t.base}/organizations/${s.org.orgId}${path}`;

/** Posts a form as the owner and returns the answer page, expecting `status`. */
async function refused(path: string, form: Record<string, string>, status = 400): Promise<string> {
  const owner = await s.as('shop-owner@shop.example');
  const res = await owner.post(at(path), { ...form, _csrf: await owner.csrf() });
  expect(res.status, path).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await res.text();
  expect(html).toContain('Assent · Console');
  expect(html).not.toContain('Privacy dashboard');
  return html;
}

/** The field with this ID: marked invalid, described by its message, which says `message`. */
function expectFieldError(html: string, id: string, message: RegExp): void {
  const field = new RegExp(`<(?:input|textarea|select|fieldset)[^>]* id="${id}"[^>]*>`).exec(html)?.[0];
  expect(field, id).toBeDefined();
  if (!field!.startsWith('<fieldset')) expect(field).toContain('aria-invalid="true"');
  expect(field).toMatch(new RegExp(`aria-describedby="([^"]* )?${id}-error( [^"]*)?"`));
  const text = new RegExp(`<p id="${id}-error" class="field-error">([^<]*)</p>`).exec(html)?.[1];
  expect(text, `${id}-error`).toMatch(message);
}

/** The value of the input with this ID. */
const inputValue = (html: string, id: string) =>
  new RegExp(`<input[^>]* id="${id}"[^>]* value="([^"]*)"`).exec(html)?.[1];

describe('the organisation page’s forms keep what was typed and say which field is wrong', () => {
  it('a new purpose with a bad policy URL: 400, the values kept, the error by the policy URL; nothing added', async () => {
    const html = await refused('/purposes', {
      name: 'Typed name',
      description: 'Typed description',
      policyurl: 'javascript:alert(1)',
      lawfulusage: 'on',
    });
    expect(inputValue(html, 'p-new-name')).toBe('Typed name');
    expect(inputValue(html, 'p-new-description')).toBe('Typed description');
    expect(inputValue(html, 'p-new-policyurl')).toBe('javascript:alert(1)');
    expectFieldError(html, 'p-new-policyurl', /starts with http:\/\/ or https:\/\//);
    expect(html).not.toMatch(/id="p-new-name"[^>]*aria-invalid/);
    expect(html).toMatch(/name="lawfulusage" value="on" checked/);
    const purposes = (await call(api('/purposes'), { token: s.org.tokens.owner })).body.Purposes;
    expect(purposes.some((p: { Name: string }) => p.Name === 'Typed name')).toBe(false);
  });

  it('an edited purpose with an empty name: its form is open again with the error by the name', async () => {
    const html = await refused(`/purposes/${s.org.marketing.id}`, { name: '', description: 'Changed' });
    expectFieldError(html, `p-${s.org.marketing.id}-name`, /required/);
    expect(inputValue(html, `p-${s.org.marketing.id}-description`)).toBe('Changed');
    expect(html).toMatch(/<details open(="")?>\s*<summary>Edit Marketing<\/summary>/);
  });

  it('a data attribute naming a purpose of another organisation: the error by the purposes, the name kept', async () => {
    const html = await refused('/attributes', { consent: 'Typed attribute', purposeids: s.org.otherOrgId });
    expect(inputValue(html, 't-new-name')).toBe('Typed attribute');
    expectFieldError(html, 't-new-purposes', /not a purpose of this organisation/);
  });

  it('retention out of bounds: the error by the period, the typed days kept', async () => {
    const html = await refused('/retention', { days: '99999', enabled: 'on' });
    expect(inputValue(html, 'period')).toBe('99999');
    expectFieldError(html, 'period', /1 to 36500 days/);
    const notANumber = await refused('/retention', { days: 'ten' });
    expectFieldError(notANumber, 'period', /form it must have/);
  });

  it('a deletion without its box ticked: the error by the box', async () => {
    const html = await refused(`/purposes/${s.org.empty}/delete`, {});
    expectFieldError(html, `p-${s.org.empty}-delete-confirm`, /Tick this box/);
  });
});

describe('the other console forms keep what was typed and say which field is wrong', () => {
  it('add an individual: a username that is too long, and a weak password, each by its field; the password is never sent back', async () => {
    const long = await refused('/individuals', {
      username: `${'a'.repeat(250)}@x.example`,
      name: 'Typed',
      password: 'x',
    });
    expectFieldError(long, 'new-username', /at most 254/);
    expect(inputValue(long, 'new-name')).toBe('Typed');
    const weak = await refused('/individuals', { username: 'new-person@shop.example', password: 'password' });
    expectFieldError(weak, 'new-password', /./);
    expect(inputValue(weak, 'new-username')).toBe('new-person@shop.example');
    expect(weak).not.toMatch(/id="new-password"[^>]*value="password"/);
  });

  it('a consent request with a malformed attribute ID: the error by that purpose’s attributes', async () => {
    const html = await refused('/requests', { purposeid: s.org.marketing.id, attributeids: 'x'.repeat(65) });
    expectFieldError(html, `r-${s.org.marketing.id}-attributes`, /at most 64/);
    // An attribute of another purpose is the API's 404 (no such attribute of this purpose): the console's 404 page.
    await refused('/requests', { purposeid: s.org.marketing.id, attributeids: s.org.delivery.address }, 404);
  });

  it('transports: a webhook URL that is not https, by its field and kept', async () => {
    const html = await refused('/integrations/transports', { webhookurl: 'http://hooks.shop.example/x', email: 'on' });
    expectFieldError(html, 'webhookurl', /https|URL/i);
    expect(inputValue(html, 'webhookurl')).toBe('http://hooks.shop.example/x');
  });

  it('app redirect URIs: a script URI, by the list and kept', async () => {
    const html = await refused('/integrations/app-redirect-uris', { uris: 'javascript:alert(1)' });
    expectFieldError(html, 'uris', /./);
    expect(html).toMatch(/<textarea[^>]* id="uris"[^>]*>javascript:alert\(1\)<\/textarea>/);
  });

  it('a relying party with a bad redirect URI, by its field; the name kept', async () => {
    const html = await refused('/integrations/relying-parties', { name: 'Typed RP', redirecturis: 'not a uri' });
    expectFieldError(html, 'rp-uris', /./);
    expect(inputValue(html, 'rp-name')).toBe('Typed RP');
  });
});

describe('the IdP, push and wallet forms mark the field too', () => {
  it('IdP: a non-https issuer (service) and an issuer too long (schema), each by the issuer; the secret never sent back', async () => {
    const form = { issuer: 'http://idp.shop.example', clientid: 'c', clientsecret: 'typed-secret-value' };
    const service = await refused('/integrations/idp/create', { ...form, tokenurl: 'https://idp.shop.example/t' });
    expectFieldError(service, 'idp-issuer', /issuer: must be an https URL/);
    expect(inputValue(service, 'idp-tokenurl')).toBe('https://idp.shop.example/t');
    expect(service).not.toContain('typed-secret-value');
    const schema = await refused('/integrations/idp/create', { ...form, issuer: `https://${'i'.repeat(2001)}` });
    expectFieldError(schema, 'idp-issuer', /at most 2000/);
    expect(schema).not.toContain('typed-secret-value');
  });

  it('push: a service-account key that is not one by its field; an APNs key ID too long by its field', async () => {
    const fcm = await refused('/integrations/push/fcm', { serviceaccount: '{}' });
    expectFieldError(fcm, 'fcm-serviceaccount', /fcm\.serviceaccount/);
    const apns = await refused('/integrations/push/apns', {
      keyid: 'K'.repeat(11),
      teamid: 'T'.repeat(10),
      bundleid: 'a.b',
    });
    expectFieldError(apns, 'apns-keyid', /at most 10/);
    expect(inputValue(apns, 'apns-teamid')).toBe('T'.repeat(10));
  });

  it('wallet: a field the schema refuses and a text outside the PEM blocks, each by its field and in the message', async () => {
    const schema = await refused('/integrations/wallet', { stableclaim: 's'.repeat(65) });
    expect(schema).toMatch(/<p class="error" role="alert">stableclaim: Enter at most 64 characters\.<\/p>/);
    expectFieldError(schema, 'wallet-stableclaim', /at most 64/);
    const service = await refused('/integrations/wallet', {
      trustedissuers: 'not a certificate',
      verifierkey: 'typed-key',
    });
    expectFieldError(service, 'wallet-trustedissuers', /outside its PEM blocks/);
    expect(service).toMatch(/<textarea[^>]* id="wallet-trustedissuers"[^>]*>not a certificate<\/textarea>/);
    expect(service).not.toContain('typed-key');
  });
});

describe('a refused form is answered only to a browser the guard lets in', () => {
  it('an invalid form without a session or CSRF token gets the guard’s answer, not the page', async () => {
    const owner: WebClient = await s.as('shop-owner@shop.example');
    const noToken = await owner.post(at('/purposes'), { name: '' });
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).not.toContain('Marketing');
    const dpo = await s.as('shop-dpo@shop.example');
    const denied = await dpo.post(at('/purposes'), { name: '', _csrf: await dpo.csrf() });
    expect(denied.status).toBe(403);
    expect(await denied.text()).not.toContain('Add a purpose');
  });
});
