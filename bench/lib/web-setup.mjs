/**
 * The web benchmark's organisation and individual (bench/README.md "Web benchmark"): an import file
 * with 7 purposes and 23 data attributes (the shape of the consent benchmark's record), written to a
 * temporary directory for `assent import`; the individual's own decisions through the JSON API
 * (attribute PATCH); the dashboard sign-in (form post with this origin's `Origin`) that gives the
 * session cookie; and the check that the page shows the record the JSON API answers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onCleanup } from './cleanup.mjs';
import { call } from './consent-http.mjs';
import { assertLocal } from './util.mjs';

/** The individual whose record both measures read. */
export const INDIVIDUAL = { username: 'web-bench@bench.example', password: 'web-bench-passphrase-0427' };

/** The organisation's name, as the page shows it. */
export const ORG_NAME = 'Bench Retail';

/** [key, name, lawful basis other than consent, attribute names]: 7 purposes, 23 attributes. */
const PURPOSES = [
  ['marketing', 'Marketing', false, ['Email address', 'Phone number', 'Postal address', 'Purchase history']],
  ['analytics', 'Product analytics', false, ['Device model', 'App usage', 'Crash reports', 'Approximate location']],
  ['personalisation', 'Personalised offers', false, ['Purchase history', 'Wish list', 'Shoe size']],
  ['research', 'Customer research', false, ['Email address', 'Age range', 'Household size']],
  ['partners', 'Sharing with partners', false, ['Email address', 'Loyalty number']],
  ['delivery', 'Delivery', true, ['Postal address', 'Phone number', 'Delivery notes', 'Door code']],
  ['fraud', 'Fraud prevention', true, ['IP address', 'Payment card fingerprint', 'Device identifier']],
];

/** The decisions given, in turn, to the consent-based attributes (`null`: left undecided). */
const DECISIONS = [
  { consented: 'Allow', days: 0 },
  { consented: 'Disallow', days: 0 },
  { consented: 'AskMe', days: 30 },
  null,
  { consented: 'Allow', days: 90 },
];

/**
 * Writes the import file to a temporary directory (removed at cleanup).
 * @returns its path.
 */
export function writeImportFile() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-bench-web-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = {
    clients: [{ clientId: 'igrant-ios-app' }, { clientId: 'privacy-dashboard' }],
    organisations: [
      {
        key: 'bench',
        name: ORG_NAME,
        description: 'The web benchmark organisation.',
        policyUrl: 'https://bench.example/privacy',
        dataRetention: { enabled: true, periodDays: 365 },
        purposes: PURPOSES.map(([key, name, lawfulUsage, attributes]) => ({
          key,
          name,
          description: `${name}: what we do with these data attributes and why.`,
          lawfulUsage,
          policyUrl: `https://bench.example/privacy#${key}`,
          attributes: attributes.map((a, i) => ({ key: `a${i}`, name: a })),
        })),
        individuals: [{ ...INDIVIDUAL, name: 'Web Bench', email: INDIVIDUAL.username }],
      },
    ],
  };
  const out = path.join(dir, 'web-bench.json');
  writeFileSync(out, JSON.stringify(file, null, 2));
  return out;
}

/**
 * Logs the individual in, reads their record and gives some consent-based attributes decided values
 * through the attribute PATCH (docs/api.md "Permissions and consents"), as the individual.
 * @returns `{access, userId, orgId, consentsPath, decided, attributes, consentBased}`.
 */
export async function decide(base, imported) {
  const org = imported.organisations.bench;
  const { json: login } = await call(base, 'POST', '/v1.1/users/login', {
    body: { username: INDIVIDUAL.username, password: INDIVIDUAL.password },
    expect: 200,
  });
  const access = login.Token.access_token;
  const userId = login.User.ID;
  const consentsPath = `/v1/organizations/${org.id}/users/${userId}/consents`;
  const { json: record } = await call(base, 'GET', consentsPath, { token: access, expect: 200 });
  let decided = 0;
  let consentBased = 0;
  for (const [key, , lawfulUsage, names] of PURPOSES) {
    if (lawfulUsage) continue;
    const purpose = org.purposes[key];
    for (let i = 0; i < names.length; i++) {
      const decision = DECISIONS[consentBased++ % DECISIONS.length];
      if (!decision) continue;
      const attributePath = `${consentsPath}/${record.ID}/purposes/${purpose.id}/attributes/${purpose.attributes[`a${i}`]}`;
      await call(base, 'PATCH', attributePath, { token: access, body: decision, expect: 200 });
      decided++;
    }
  }
  const attributes = PURPOSES.reduce((n, p) => n + p[3].length, 0);
  return { access, userId, orgId: org.id, consentsPath, decided, attributes, consentBased };
}

/**
 * Signs in to the dashboard as the individual (`POST /dashboard/sign-in`, a form from this origin).
 * @returns the `Cookie` header value of the session.
 */
export async function webSignIn(base) {
  assertLocal(base, 'server URL');
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ username: INDIVIDUAL.username, password: INDIVIDUAL.password }).toString(),
  });
  const setCookie = res.headers.get('set-cookie') ?? '';
  if (res.status !== 303 || !setCookie)
    throw new Error(`dashboard sign-in: expected 303 with a cookie, got ${res.status} ${await res.text()}`);
  return setCookie.split(';')[0];
}

/**
 * Fetches both answers once and checks that the page shows the JSON record: every attribute's name,
 * one form per consent-based attribute with its value checked.
 * @returns `{record, page, jsonBytes, pageBytes}` (bytes of the bodies as sent, uncompressed).
 */
export async function checkSameData(base, setup, cookie) {
  const json = await call(base, 'GET', setup.consentsPath, { token: setup.access, expect: 200 });
  const page = await call(base, 'GET', '/dashboard/consents', { headers: { cookie }, expect: 200 });
  const record = json.json;
  const problems = [];
  const attrs = record.ConsentsAndPurposes.flatMap((p) => p.Consents);
  if (attrs.length !== setup.attributes)
    problems.push(`record has ${attrs.length} attributes, ${setup.attributes} expected`);
  for (const a of attrs) if (!page.text.includes(a.Description)) problems.push(`page lacks "${a.Description}"`);
  const forms = page.text.split('<form class="attribute"').length - 1;
  if (forms !== setup.consentBased) problems.push(`page has ${forms} attribute forms, ${setup.consentBased} expected`);
  const checked = (page.text.match(/ checked/g) ?? []).length;
  if (checked !== setup.consentBased)
    problems.push(`page has ${checked} checked values, ${setup.consentBased} expected`);
  if (problems.length) throw new Error(`the page does not show the JSON record: ${problems.join('; ')}`);
  return {
    record,
    page: page.text,
    jsonBytes: Buffer.byteLength(json.text),
    pageBytes: Buffer.byteLength(page.text),
  };
}
