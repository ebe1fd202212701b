/**
 * The SAML ACS's response validation against a real `assent serve` (its log captured), with
 * responses crafted and signed by a test IdP key (test/helpers/saml-forge.ts): a top-level status
 * other than Success, every signature present verifying (Response and Assertion), encrypted
 * assertions (to Assent's encryption certificate, or to another key), the clock skew setting
 * (`ASSENT_SAML_CLOCK_SKEW_SECONDS`, 120 here, on assertions and IdP-initiated LogoutRequests), `AuthnRequestsSigned` in the SP metadata, and the
 * operator's log line for each refusal (its real cause, never a NameID or an attribute value).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/platform/config/load.js';
import { call } from './helpers/assent.js';
import { jsonLogLines } from './helpers/cli.js';
import { assertion, type Claims, encode, encryptAssertion, response, sign, withStatus } from './helpers/saml-forge.js';
import { type TestKeyPair, testKeyPair } from './helpers/saml-keys.js';
import { logoutRequest, postForm, signRoot } from './helpers/saml-logout.js';
import { APP, metadataCertificates, pendingSignIn, type ServedOrg, serveOrg } from './helpers/saml-served.js';

let s: ServedOrg;
let owner: string;
let orgId: string;
let idpKey: TestKeyPair;
let otherKey: TestKeyPair;
const saml = () => `${s.server.base}/organizations/${orgId}/idp/saml`;

/** Starts a sign-in: its RelayState and the AuthnRequest's ID. */
const pending = () => pendingSignIn(saml());

function claims(requestId: string, nameId: string, over: Partial<Claims> = {}): Claims {
  return {
    issuer: 'urn:forge:idp',
    audience: `${saml()}/metadata`,
    acsUrl: `${saml()}/acs`,
    nameId,
    inResponseTo: requestId,
    email: `${nameId}@attribute.example`,
    ...over,
  };
}

/** Posts the Response `make` builds for a fresh pending sign-in; the app's query parameters. */
async function post(make: (c: (nameId: string, over?: Partial<Claims>) => Claims) => string) {
  const p = await pending();
  const xml = make((nameId, over) => claims(p.requestId, nameId, over));
  const res = await fetch(`${saml()}/acs`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse: encode(xml), RelayState: p.relayState }).toString(),
  });
  expect(res.status).toBe(303);
  const params = new URL(res.headers.get('location')!).searchParams;
  if (!params.get('code')) refusedCount++;
  return params;
}

/** How many responses this file had refused. */
let refusedCount = 0;

/** The operator's log lines of refused responses so far. */
const refusals = () => jsonLogLines(s.server).filter((l) => l.msg === 'SAML response refused');

beforeAll(async () => {
  [idpKey, otherKey] = await Promise.all([testKeyPair('forge-idp'), testKeyPair('someone-else')]);
  s = await serveOrg({ ASSENT_SAML_CLOCK_SKEW_SECONDS: '120' });
  ({ owner, orgId } = s);
  const created = await call(saml(), {
    token: owner,
    body: { entityId: 'urn:forge:idp', ssoUrl: 'https://idp.example/sso', signingCertificates: [idpKey.certificate] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}, 90_000);
afterAll(async () => {
  await s?.close();
});

describe('status and signatures', () => {
  it('a Response and Assertion both validly signed sign in (the fixture is valid)', async () => {
    const back = await post((c) =>
      sign(response(c('both-0001'), sign(assertion(c('both-0001')), 'Assertion', idpKey)), 'Response', idpKey),
    );
    expect(back.get('error_description')).toBeNull();
    expect(back.get('code')).toMatch(/^asc_/);
  });

  it('SAML Core §3.2.2.2: a Response whose top-level StatusCode is not Success issues no code, even with a valid signed assertion', async () => {
    for (const status of [
      'urn:oasis:names:tc:SAML:2.0:status:Responder',
      'urn:oasis:names:tc:SAML:2.0:status:Requester',
    ])
      for (const signResponse of [false, true]) {
        const back = await post((c) => {
          const xml = withStatus(
            response(c('status-0001'), sign(assertion(c('status-0001')), 'Assertion', idpKey)),
            status,
          );
          return signResponse ? sign(xml, 'Response', idpKey) : xml;
        });
        expect(back.get('code')).toBeNull();
        expect(back.get('error')).toBe('access_denied');
        expect(back.get('error_description')).toMatch(/identity provider refused the sign-in/);
      }
  });

  it('every signature present must verify: a Response signed by another key around a valid signed assertion is refused', async () => {
    const back = await post((c) =>
      sign(response(c('sig-0001'), sign(assertion(c('sig-0001')), 'Assertion', idpKey)), 'Response', otherKey),
    );
    expect(back.get('code')).toBeNull();
    expect(back.get('error_description')).toMatch(/not signed by a configured certificate/);
  });

  it('every signature present must verify: a valid signed Response around an assertion signed by another key is refused', async () => {
    const back = await post((c) =>
      sign(response(c('sig-0002'), sign(assertion(c('sig-0002')), 'Assertion', otherKey)), 'Response', idpKey),
    );
    expect(back.get('code')).toBeNull();
    expect(back.get('error_description')).toMatch(/not signed by a configured certificate/);
  });
});

describe('encrypted assertions', () => {
  it('an assertion encrypted to the encryption certificate of the SP metadata signs in', async () => {
    const [encryption] = metadataCertificates(await (await fetch(`${saml()}/metadata`)).text(), 'encryption');
    expect(encryption).toBeTruthy();
    const back = await post((c) =>
      response(c('enc-0001'), encryptAssertion(sign(assertion(c('enc-0001')), 'Assertion', idpKey), encryption!)),
    );
    expect(back.get('error_description')).toBeNull();
    expect(back.get('code')).toMatch(/^asc_/);
  });

  it('an assertion encrypted to another key is refused', async () => {
    const back = await post((c) =>
      response(
        c('enc-0002'),
        encryptAssertion(sign(assertion(c('enc-0002')), 'Assertion', idpKey), otherKey.certificate),
      ),
    );
    expect(back.get('code')).toBeNull();
    expect(back.get('error_description')).toBe('Sign-in refused: the encrypted assertion was refused');
  });

  it('no decryption oracle: every refusal of an encrypted assertion tells the app the same words', async () => {
    const [encryption] = metadataCertificates(await (await fetch(`${saml()}/metadata`)).text(), 'encryption');
    /** `plain` encrypted, its last padding byte then set to 0 through the previous block (CBC): a padding error. */
    const badPadding = (plain: string) => {
      const xml = encryptAssertion(plain, encryption!);
      const [whole, value] =
        /<xenc:CipherData><xenc:CipherValue>([^<]+)<\/xenc:CipherValue><\/xenc:CipherData><\/xenc:EncryptedData>/.exec(
          xml,
        )!;
      const bytes = Buffer.from(value!, 'base64');
      bytes[bytes.length - 17]! ^= 16 - (Buffer.byteLength(plain) % 16); // PKCS #7 padding value → 0
      return xml.replace(whole, whole.replace(value!, bytes.toString('base64')));
    };
    const answers = new Set<string | null>();
    for (const make of [
      (c: Claims) => encryptAssertion(sign(assertion(c), 'Assertion', otherKey), encryption!), // bad signature inside
      (c: Claims) => badPadding(sign(assertion(c), 'Assertion', idpKey)),
      // Not well-formed once decrypted (as a truncating tamper of the last block gives): an XML parser
      // that repairs it would rebuild the signed assertion.
      (c: Claims) => encryptAssertion(sign(assertion(c), 'Assertion', idpKey).slice(0, -5), encryption!),
      // Garbage after the signed assertion, as a tamper of an all-padding last block can leave.
      (c: Claims) => encryptAssertion(`${sign(assertion(c), 'Assertion', idpKey)}\u00e9x`, encryption!),
      (c: Claims) => encryptAssertion(sign(assertion(c), 'Assertion', idpKey), encryption!, 'rsa-1_5'), // PKCS #1 v1.5
    ]) {
      const back = await post((c) => response(c('enc-0003'), make(c('enc-0003'))));
      expect(back.get('code')).toBeNull();
      answers.add(back.get('error_description'));
    }
    expect([...answers]).toEqual(['Sign-in refused: the encrypted assertion was refused']);
  });
});

describe('clock skew (ASSENT_SAML_CLOCK_SKEW_SECONDS=120)', () => {
  it('an assertion valid from 90 s in the future is accepted within the setting', async () => {
    const back = await post((c) =>
      response(c('skew-0001'), sign(assertion(c('skew-0001', { notBefore: 90 })), 'Assertion', idpKey)),
    );
    expect(back.get('error_description')).toBeNull();
    expect(back.get('code')).toMatch(/^asc_/);
  });

  it('an assertion valid from 200 s in the future is refused beyond it', async () => {
    const back = await post((c) =>
      response(
        c('skew-0002'),
        sign(assertion(c('skew-0002', { notBefore: 200, notOnOrAfter: 600 })), 'Assertion', idpKey),
      ),
    );
    expect(back.get('code')).toBeNull();
    expect(back.get('error_description')).toMatch(/expired or not yet valid/);
  });

  it('an IdP-initiated LogoutRequest issued 90 s ahead is taken within the setting, 200 s ahead is refused', async () => {
    const slo = `${saml()}/logout/callback`;
    const send = (issuedAt: number) =>
      fetch(slo, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: postForm(
          'SAMLRequest',
          signRoot(logoutRequest({ issuer: 'urn:forge:idp', destination: slo, nameId: 'skew-0003', issuedAt }), idpKey),
        ),
      });
    // Within the skew it is answered (nobody of that NameID is signed in: no session ended, no refusal).
    const within = await send(90);
    expect(within.status, await within.clone().text()).toBe(200);
    expect(await within.json()).toEqual({ LoggedOut: false });
    const beyond = await send(200);
    expect(beyond.status).toBe(400);
    expect(JSON.stringify(await beyond.json())).toMatch(/not yet valid/);
  });

  it('the setting is validated: 0 to 600 seconds', () => {
    expect(loadConfig({ ASSENT_SAML_CLOCK_SKEW_SECONDS: '0' }).samlClockSkewSeconds).toBe(0);
    expect(loadConfig({}).samlClockSkewSeconds).toBe(60);
    for (const bad of ['601', '-1', '1.5', 'a minute'])
      expect(() => loadConfig({ ASSENT_SAML_CLOCK_SKEW_SECONDS: bad })).toThrow(
        /ASSENT_SAML_CLOCK_SKEW_SECONDS must be an integer from 0 to 600/,
      );
  });
});

describe('the operator’s log', () => {
  it('each refused Response is logged with its real cause, never a NameID or an attribute value', async () => {
    // The server's logger writes asynchronously: wait for the line of every refusal, not for a time.
    for (let i = 0; i < 200 && refusals().length < refusedCount; i++) await new Promise((r) => setTimeout(r, 50));
    const lines = refusals();
    expect(lines).toHaveLength(refusedCount);
    const causes = lines.map((l) => l.cause);
    expect(lines.every((l) => l.orgId === orgId && l.idp === 'urn:forge:idp')).toBe(true);
    expect(causes).toContain('top-level StatusCode is Responder, not Success');
    expect(causes).toContain('node-saml: Invalid document signature');
    expect(causes).toContain('the EncryptedAssertion does not decrypt to a well-formed Assertion');
    expect(
      causes.some((c) => /^node-saml: Invalid signature/.test(c)),
      causes.join('\n'),
    ).toBe(true);
    // Encrypted to another key, and the bad padding (as the decryption library words it).
    expect(
      causes.filter((c) => c.startsWith('no published encryption key decrypts the EncryptedAssertion')),
    ).toHaveLength(2);
    expect(
      causes.some((c) => c.includes('key transport http://www.w3.org/2001/04/xmlenc#rsa-1_5')),
      causes.join('\n'),
    ).toBe(true);
    expect(
      causes.some((c) => /^node-saml: SAML assertion not yet valid/.test(c)),
      causes.join('\n'),
    ).toBe(true);
    const all = s.server.stdout();
    for (const secret of [
      'status-0001',
      'sig-0001',
      'sig-0002',
      'enc-0002',
      'enc-0003',
      'skew-0002',
      '@attribute.example',
    ])
      expect(all).not.toContain(secret);
  });
});

describe('SP metadata', () => {
  it('AuthnRequestsSigned tells whether the organisation signs its AuthnRequests (signAuthnRequests)', async () => {
    const signed = await (await fetch(`${saml()}/metadata`)).text();
    expect(signed).toContain('AuthnRequestsSigned="true"');
    expect((await call(saml(), { method: 'PUT', token: owner, body: { signAuthnRequests: false } })).status).toBe(200);
    const unsigned = await (await fetch(`${saml()}/metadata`)).text();
    expect(unsigned).toContain('AuthnRequestsSigned="false"');
    expect(unsigned).not.toContain('AuthnRequestsSigned="true"');
    // LogoutRequests are still signed: the signing certificate stays published.
    expect(metadataCertificates(unsigned, 'signing')).toHaveLength(1);
    const start = await fetch(`${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=x`, {
      redirect: 'manual',
    });
    expect(new URL(start.headers.get('location')!).searchParams.get('Signature')).toBeNull();
  });
});
