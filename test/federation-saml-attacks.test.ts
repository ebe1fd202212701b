/**
 * Attacks on the SAML ACS (docs/federation.md "SAML 2.0"), each with a response crafted and signed
 * by a test key (test/helpers/saml-forge.ts): every one gets no code and changes nothing (no user,
 * no link, no code, no accepted assertion ID). A valid crafted response is signed in first, so that
 * each refusal is the check's and not a broken fixture.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { assertion, type Claims, encode, response, samlId, sign, wrappingVariants } from './helpers/saml-forge.js';
import { type TestKeyPair, testKeyPair } from './helpers/saml-keys.js';
import { pendingSignIn } from './helpers/saml-served.js';

const APP = 'https://app.example/cb';
let t: TestAssent;
let owner: string;
let orgId: string;
let idpKey: TestKeyPair;
let otherKey: TestKeyPair;
const saml = () => `${t.base}/organizations/${orgId}/idp/saml`;

/** Starts a sign-in: its RelayState and the AuthnRequest's ID. */
const pending = () => pendingSignIn(saml());

function claims(requestId: string | null, over: Partial<Claims> = {}): Claims {
  return {
    issuer: 'urn:forge:idp',
    audience: `${saml()}/metadata`,
    acsUrl: `${saml()}/acs`,
    nameId: 'mallory-0001',
    inResponseTo: requestId,
    ...over,
  };
}

async function post(xml: string, relayState: string) {
  const res = await fetch(`${saml()}/acs`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse: encode(xml), RelayState: relayState }).toString(),
  });
  const location = res.headers.get('location');
  return { status: res.status, params: location ? new URL(location).searchParams : null, body: await res.text() };
}

async function counts() {
  const [row] = rowsOf<Record<string, number>>(
    await t.store.db.execute(sql`SELECT
      (SELECT count(*)::int FROM users) AS users,
      (SELECT count(*)::int FROM federated_identities) AS links,
      (SELECT count(*)::int FROM federation_codes) AS codes,
      (SELECT count(*)::int FROM saml_assertions) AS assertions`),
  );
  return row!;
}

/** Posts `xml` for a fresh pending sign-in (or `relayState`) and expects no code and no change. */
async function refused(make: (requestId: string) => string, reason: RegExp, relayState?: string) {
  const p = await pending();
  const before = await counts();
  const res = await post(make(p.requestId), relayState ?? p.relayState);
  expect(res.params?.get('code') ?? null).toBeNull();
  if (res.params) {
    expect(res.status).toBe(303);
    expect(res.params.get('error')).toBe('access_denied');
    expect(res.params.get('error_description')).toMatch(reason);
  } else {
    expect(res.status).toBe(400);
    expect(res.body).toMatch(reason);
  }
  expect(await counts()).toEqual(before);
}

beforeAll(async () => {
  t = await startAssent();
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  [idpKey, otherKey] = await Promise.all([testKeyPair('forge-idp'), testKeyPair('someone-else')]);
  const created = await call(saml(), {
    token: owner,
    body: { entityId: 'urn:forge:idp', ssoUrl: 'https://idp.example/sso', signingCertificates: [idpKey.certificate] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const uris = await call(`${t.base}/organizations/${orgId}/idp/open-id/app-redirect-uris`, {
    method: 'PUT',
    token: owner,
    body: { RedirectURIs: [APP] },
  });
  expect(uris.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('a crafted response signed by the configured key', () => {
  it('signs in (the fixture is valid): signed assertion, and signed response', async () => {
    for (const local of ['Assertion', 'Response'] as const) {
      const p = await pending();
      const c = claims(p.requestId, { nameId: `valid-${local}` });
      const xml =
        local === 'Assertion'
          ? response(c, sign(assertion(c), 'Assertion', idpKey))
          : sign(response(c, assertion(c)), 'Response', idpKey);
      const res = await post(xml, p.relayState);
      expect(res.params?.get('error_description') ?? null).toBeNull();
      expect(res.params?.get('code')).toMatch(/^asc_/);
    }
  });
});

describe('attacks: no code, nothing changed', () => {
  for (const variant of ['XSW1', 'XSW2', 'XSW3', 'XSW4', 'XSW5', 'XSW6', 'XSW7', 'XSW8'])
    it(`XML signature wrapping ${variant} is refused`, async () => {
      await refused((id) => wrappingVariants(claims(id), idpKey, 'victim-0002')[variant]!, /Sign-in refused/);
    });

  it('an unsigned assertion is refused', async () => {
    await refused((id) => response(claims(id), assertion(claims(id))), /not signed by a configured certificate/);
  });

  it('an assertion signed by another key is refused', async () => {
    await refused(
      (id) => response(claims(id), sign(assertion(claims(id)), 'Assertion', otherKey)),
      /not signed by a configured certificate/,
    );
  });

  it('a comment inside the NameID (CVE-2017-11427 class) is refused', async () => {
    await refused((id) => {
      const signed = sign(assertion(claims(id, { nameId: 'victim-0002.evil' })), 'Assertion', idpKey);
      return response(claims(id), signed.replace('victim-0002.evil', 'victim-0002<!---->.evil'));
    }, /XML comment/);
  });

  it('an XXE payload is refused', async () => {
    await refused(
      (id) =>
        `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>${response(claims(id), sign(assertion(claims(id, { nameId: '&x;' })), 'Assertion', idpKey))}`,
      /document type declaration/,
    );
  });

  it('an entity-expansion (billion laughs) payload is refused', async () => {
    const lol = `<!DOCTYPE r [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>`;
    await refused(
      (id) => lol + response(claims(id), assertion(claims(id, { nameId: '&c;' }))),
      /document type declaration/,
    );
  });

  it('a response for another audience is refused', async () => {
    await refused(
      (id) =>
        response(
          claims(id),
          sign(assertion(claims(id, { audience: 'https://other-sp.example/metadata' })), 'Assertion', idpKey),
        ),
      /Audience/,
    );
  });

  it('an assertion for another ACS (Recipient) is refused', async () => {
    await refused(
      (id) =>
        response(
          claims(id),
          sign(assertion(claims(id, { recipient: 'https://other-sp.example/acs' })), 'Assertion', idpKey),
        ),
      /Recipient/,
    );
  });

  it('a response sent to another ACS (Destination) is refused', async () => {
    await refused(
      (id) =>
        response(
          claims(id, { destination: 'https://other-sp.example/acs' }),
          sign(assertion(claims(id)), 'Assertion', idpKey),
        ),
      /Destination/,
    );
  });

  it('an expired assertion (past the 60 s skew) is refused', async () => {
    await refused(
      (id) =>
        response(claims(id), sign(assertion(claims(id, { notBefore: -600, notOnOrAfter: -120 })), 'Assertion', idpKey)),
      /expired or not yet valid/,
    );
  });

  it('a response to another request (InResponseTo) is refused', async () => {
    await refused(() => {
      const c = claims(samlId());
      return response(c, sign(assertion(c), 'Assertion', idpKey));
    }, /InResponseTo/);
  });

  it('an unsolicited response is refused while IdP-initiated sign-in is off', async () => {
    await refused(() => response(claims(null), sign(assertion(claims(null)), 'Assertion', idpKey)), /RelayState/, APP);
  });

  it('a replayed response is refused (its RelayState and request are spent)', async () => {
    const p = await pending();
    const c = claims(p.requestId, { nameId: 'replay-0003' });
    const xml = response(c, sign(assertion(c), 'Assertion', idpKey));
    expect((await post(xml, p.relayState)).params?.get('code')).toMatch(/^asc_/);
    const before = await counts();
    const again = await post(xml, p.relayState);
    expect(again.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it('a replayed assertion is refused by its ID even when IdP-initiated sign-in is on', async () => {
    expect((await call(saml(), { method: 'PUT', token: owner, body: { allowUnsolicited: true } })).status).toBe(200);
    try {
      const c = claims(null, { nameId: 'unsolicited-0004' });
      const xml = response(c, sign(assertion(c), 'Assertion', idpKey));
      expect((await post(xml, APP)).params?.get('code')).toMatch(/^asc_/);
      await refused(() => xml, /replay/, APP);
    } finally {
      await call(saml(), { method: 'PUT', token: owner, body: { allowUnsolicited: false } });
    }
  });
});
