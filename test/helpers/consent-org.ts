/** A second organisation for the consent tests: purposes of both lawful bases, staff of each role. */
import { afterAll, beforeAll, expect } from 'vitest';
import { runImport } from '../../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../../src/federation/openid/redirect-uris.js';
import { call, login, startAssent, type TestAssent } from './assent.js';
import { waitFor } from './receiver.js';
import { type Smtp, startSmtp } from './smtp.js';
import { type WebClient, webSignIn } from './web-client.js';

/** IDs and credentials of the consent test organisation ("shop"). */
export interface ConsentOrg {
  orgId: string;
  otherOrgId: string;
  marketing: { id: string; email: string; phone: string };
  delivery: { id: string; address: string };
  empty: string;
  users: Record<string, string>;
  /** Access tokens by person. */
  tokens: Record<string, string>;
  /** API keys by person. */
  apiKeys: Record<string, string>;
}

/** The password of every person of the consent test organisations. */
export const CONSENT_PASSWORD = 'consent-test-passphrase';

/** Imports "shop" and "other" and signs everyone in. */
export async function setUpConsentOrg(t: TestAssent): Promise<ConsentOrg> {
  const people = {
    owner: 'shop-owner@shop.example',
    admin: 'shop-admin@shop.example',
    dpo: 'shop-dpo@shop.example',
    developer: 'shop-dev@shop.example',
    carol: 'carol@shop.example',
    dave: 'dave@shop.example',
    mallory: 'mallory@other.example',
  } as const;
  const pw = CONSENT_PASSWORD;
  const ids = await runImport(
    t.store.db,
    {
      organisations: [
        {
          key: 'shop',
          name: 'Shop',
          purposes: [
            {
              key: 'marketing',
              name: 'Marketing',
              lawfulUsage: false,
              attributes: [
                { key: 'email', name: 'Email' },
                { key: 'phone', name: 'Phone' },
              ],
            },
            { key: 'delivery', name: 'Delivery', lawfulUsage: true, attributes: [{ key: 'address', name: 'Address' }] },
            { key: 'empty', name: 'Empty', lawfulUsage: false },
          ],
          admins: [
            { username: people.owner, password: pw, roles: ['owner'] },
            { username: people.admin, password: pw, roles: ['admin'] },
            { username: people.dpo, password: pw, roles: ['dpo'] },
            { username: people.developer, password: pw, roles: ['developer'] },
          ],
          individuals: [
            { username: people.carol, password: pw, name: 'Carol' },
            { username: people.dave, password: pw, name: 'Dave' },
          ],
        },
        {
          key: 'other',
          name: 'Other',
          admins: [{ username: people.mallory, password: pw, roles: ['owner', 'admin', 'developer'] }],
        },
      ],
    },
    t.config.argon2,
    redirectUriImport,
  );
  const shop = ids.organisations.shop!;
  const tokens: Record<string, string> = {};
  const apiKeys: Record<string, string> = {};
  const users: Record<string, string> = {};
  for (const [who, username] of Object.entries(people)) {
    const body = await login(t, username, pw);
    tokens[who] = body.Token.access_token;
    apiKeys[who] = (body.User as { APIKey: string }).APIKey;
    users[who] = (body.User as { ID: string }).ID;
  }
  return {
    orgId: shop.id,
    otherOrgId: ids.organisations.other!.id,
    marketing: {
      id: shop.purposes.marketing!.id,
      email: shop.purposes.marketing!.attributes.email!,
      phone: shop.purposes.marketing!.attributes.phone!,
    },
    delivery: { id: shop.purposes.delivery!.id, address: shop.purposes.delivery!.attributes.address! },
    empty: shop.purposes.empty!.id,
    users,
    tokens,
    apiKeys,
  };
}

/** The consents base of a user: `{base}/organizations/{org}/users/{user}/consents`. */
export function consentsUrl(t: TestAssent, org: ConsentOrg, user: string): string {
  return `${t.base}/organizations/${org.orgId}/users/${org.users[user] ?? user}/consents`;
}

/** The consent record ID of a user, read through the API with their own token. */
export async function consentIdOf(t: TestAssent, org: ConsentOrg, user: string): Promise<string> {
  const res = await call(consentsUrl(t, org, user), { token: org.tokens[user] });
  if (res.status !== 200) throw new Error(`consents of ${user}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.ID as string;
}

/**
 * Sets one attribute consent of a user through the API (`PATCH …/attributes/{attributeID}`), with the Developer's API
 * key, as an organisation's back end does for its individuals.
 * @param user - a person of `org.users`, or a user ID.
 * @param days - days given with the choice (0 = no time limit).
 * @returns the user's consent record ID.
 * @throws Error when the record cannot be read or the change is not answered 200.
 */
export async function setConsent(
  t: TestAssent,
  org: ConsentOrg,
  user: string,
  purposeId: string,
  attributeId: string,
  consented: string,
  days = 0,
): Promise<string> {
  const key = { token: org.apiKeys.developer, scheme: 'ApiKey' };
  const record = (await call(consentsUrl(t, org, user), key)).body.ID as string;
  const url = `${consentsUrl(t, org, user)}/${record}/purposes/${purposeId}/attributes/${attributeId}`;
  const res = await call(url, { ...key, method: 'PATCH', body: { consented, days } });
  if (res.status !== 200) throw new Error(`consent of ${user}: ${res.status} ${JSON.stringify(res.body)}`);
  return record;
}

/**
 * Registers a suite's set-up: a fresh Assent with the "shop" organisation signed in before all
 * tests, stopped after them. The fields are filled when `beforeAll` has run.
 * @param env - extra environment of the server (e.g. `ASSENT_FEDERATION_ALLOW_HTTP_HOSTS`).
 */
export function consentSuite(env: Record<string, string> = {}): { t: TestAssent; org: ConsentOrg } {
  const suite = {} as { t: TestAssent; org: ConsentOrg };
  beforeAll(async () => {
    suite.t = await startAssent(env);
    suite.org = await setUpConsentOrg(suite.t);
  });
  afterAll(() => suite.t?.stop());
  return suite;
}

/** A console test suite: `consentSuite`'s server and organisation, and web sign-in by username. */
export interface ConsoleSuite {
  t: TestAssent;
  org: ConsentOrg;
  /** A new browser signed in through the web sign-in form as one of the organisations' people. */
  as(username: string): Promise<WebClient>;
}

/**
 * Registers a console suite's set-up (test/web-console*.test.ts): `consentSuite`, plus `as` to sign
 * a browser in as any of its people. Further `beforeAll` hooks of the file run after this one's.
 * @param env - extra environment of the server.
 */
export function consoleSuite(env: Record<string, string> = {}): ConsoleSuite {
  const suite = consentSuite(env) as ConsoleSuite;
  suite.as = (username) => webSignIn(suite.t, { username, password: CONSENT_PASSWORD });
  return suite;
}

/**
 * Sends the special consent request (docs/api.md "Permissions and consents") on `purposeId` as the owner, expects its 202, and
 * waits for the job to end.
 * @returns the job's last body (`State` `completed` or `failed`, or still running after `timeoutMs`).
 */
export async function runConsentRequest(t: TestAssent, org: ConsentOrg, purposeId: string, timeoutMs = 30_000) {
  const res = await call(`${t.base}/organizations/${org.orgId}/purposes/${purposeId}/attributes/consent`, {
    method: 'POST',
    body: {},
    token: org.tokens.owner,
  });
  expect(res.status).toBe(202);
  const job = await waitFor(
    () => call(res.headers.get('location')!, { token: org.tokens.owner }),
    (r) => r.body?.State === 'completed' || r.body?.State === 'failed',
    timeoutMs,
  );
  return job.body;
}

/** A consent test suite whose server mails through a real SMTP server on loopback (`smtp` receives every mail). */
export function mailingConsentSuite(): { t: TestAssent; org: ConsentOrg; smtp: Smtp } {
  const suite = {} as { t: TestAssent; org: ConsentOrg; smtp: Smtp };
  beforeAll(async () => {
    suite.smtp = await startSmtp();
    suite.t = await startAssent({ SMTP_URL: suite.smtp.url });
    suite.org = await setUpConsentOrg(suite.t);
  });
  afterAll(async () => {
    await suite.t?.stop();
    await suite.smtp?.close();
  });
  return suite;
}
