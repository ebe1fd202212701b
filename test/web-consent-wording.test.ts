/**
 * The words for a consent's state on both web front ends over HTTP (docs/web.md "Privacy dashboard",
 * src/web/shared/format.ts `consentState`): the privacy dashboard and the console's individual page say the
 * same thing for the same stored value, and days belong to AskMe (docs/api.md "AskMe with days"):
 * AskMe reads with its days left or "no time limit", Allow and Disallow read as the value alone, and
 * a Days value the dashboard's form sends with Allow or Disallow is not stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { CONSENT_PASSWORD, consentsUrl, consoleSuite, setConsent } from './helpers/consent-org.js';
import { type WebClient, webSignIn } from './helpers/web-client.js';

const s = consoleSuite();
let carol: WebClient;
let owner: WebClient;

beforeAll(async () => {
  carol = await webSignIn(s.t, { username: 'carol@shop.example', password: CONSENT_PASSWORD });
  owner = await s.as('shop-owner@shop.example');
});

/** What the dashboard says of Carol's attribute: the text after "Now: " in its row. */
async function onDashboard(attributeId: string): Promise<string> {
  const html = await (await carol.get('/dashboard/consents')).text();
  const m = new RegExp(`id="a-${s.org.marketing.id}-${attributeId}"[\\s\\S]*?Now: ([^<]*)<`).exec(html);
  expect(m, 'the attribute’s row').not.toBeNull();
  return m![1]!.trim();
}

/** What the console's individual page says of Carol's attribute (by its name): its Consent cell. */
async function onConsole(name: string): Promise<string> {
  const res = await owner.get(`/console/${s.org.orgId}/individuals/${s.org.users.carol}`);
  expect(res.status).toBe(200);
  const m = new RegExp(`<th scope="row">${name}</th><td>([^<]*)</td>`).exec(await res.text());
  expect(m, 'the attribute’s row').not.toBeNull();
  return m![1]!;
}

/** Carol's attribute as the JSON API reads it. */
async function stored(attributeId: string) {
  const token = s.org.tokens.carol;
  const record = await call(consentsUrl(s.t, s.org, 'carol'), { token });
  const marketing = record.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === s.org.marketing.id);
  return marketing.Consents.find((a: any) => a.ID === attributeId).Status;
}

describe('one wording for a consent’s state on the dashboard and the console', () => {
  const email = () => s.org.marketing.email;
  const phone = () => s.org.marketing.phone;

  it('AskMe without days reads "AskMe, no time limit" on both, never "0 of 0 days left"', async () => {
    await setConsent(s.t, s.org, 'carol', s.org.marketing.id, email(), 'AskMe', 0);
    expect(await onDashboard(email())).toBe('AskMe, no time limit');
    expect(await onConsole('Email')).toBe('AskMe, no time limit');
  });

  it('AskMe for 45 days reads "AskMe, 45 of 45 days left" on both', async () => {
    await setConsent(s.t, s.org, 'carol', s.org.marketing.id, phone(), 'AskMe', 45);
    expect(await onDashboard(phone())).toBe('AskMe, 45 of 45 days left');
    expect(await onConsole('Phone')).toBe('AskMe, 45 of 45 days left');
  });

  it('Allow and Disallow read as the value alone on both', async () => {
    await setConsent(s.t, s.org, 'carol', s.org.marketing.id, email(), 'Allow', 0);
    await setConsent(s.t, s.org, 'carol', s.org.marketing.id, phone(), 'Disallow', 7);
    expect(await onDashboard(email())).toBe('Allow');
    expect(await onConsole('Email')).toBe('Allow');
    expect(await onDashboard(phone())).toBe('Disallow');
    expect(await onConsole('Phone')).toBe('Disallow');
  });
});

describe('the dashboard’s Days field belongs to AskMe', () => {
  const post = async (attributeId: string, consented: string, days: string) => {
    const path = `/dashboard/consents/${s.org.orgId}/${s.org.marketing.id}/${attributeId}`;
    const res = await carol.post(path, { _csrf: await carol.csrf(), consented, days });
    expect(res.status).toBe(303);
  };

  it('Days sent with Allow or Disallow from the form is not stored; with AskMe it is', async () => {
    const email = s.org.marketing.email;
    await post(email, 'Allow', '7');
    expect(await stored(email)).toMatchObject({ Consent: 'Allow', Days: 0 });
    await post(email, 'Disallow', '7');
    expect(await stored(email)).toMatchObject({ Consent: 'Disallow', Days: 0 });
    await post(email, 'AskMe', '7');
    expect(await stored(email)).toMatchObject({ Consent: 'AskMe', Days: 7, Remaining: 7 });
  });
});
