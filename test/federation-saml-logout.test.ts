/**
 * Single logout at Assent's SingleLogoutService (docs/federation.md "SAML 2.0", Logout),
 * with messages crafted and signed by a test IdP key (test/helpers/saml-logout.ts): the SP metadata
 * advertises exactly the bindings accepted; a LogoutResponse is accepted on both bindings only when
 * signed, from the IdP, sent to the SLO endpoint and answering a LogoutRequest Assent sent, once;
 * an IdP-initiated LogoutRequest ends the Assent sessions it names and is answered with a signed
 * LogoutResponse, and a forged one ends nothing. Sessions are opened by crafted sign-ins
 * (test/helpers/saml-forge.ts) and the existing exchange.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { assertion, encode, requestIdOf, response, sign } from './helpers/saml-forge.js';
import { type TestKeyPair, testKeyPair } from './helpers/saml-keys.js';
import {
  configureSaml,
  logoutRequest,
  logoutResponse,
  postForm,
  RESPONDER,
  readSentResponse,
  redirectQuery,
  SUCCESS,
  signRoot,
  spCertificateOf,
} from './helpers/saml-logout.js';

const APP = 'https://app.example/cb';
const IDP = 'urn:forge:idp';
const IDP_SLO = 'https://idp.example/slo';
let t: TestAssent;
let orgId: string;
let idpKey: TestKeyPair;
let otherKey: TestKeyPair;
let spCertificate: string;
const saml = () => `${t.base}/organizations/${orgId}/idp/saml`;
const slo = () => `${saml()}/logout/callback`;

/** Signs `nameId` in with a crafted response carrying `sessionIndex`; returns the access token. */
async function signIn(nameId: string, sessionIndex: string): Promise<string> {
  const start = await fetch(`${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}`, { redirect: 'manual' });
  const location = start.headers.get('location')!;
  const requestId = requestIdOf(location);
  const c = { issuer: IDP, audience: `${saml()}/metadata`, acsUrl: `${saml()}/acs`, nameId, inResponseTo: requestId };
  const signed = sign(
    assertion(c).replace('SessionIndex="_s1"', `SessionIndex="${sessionIndex}"`),
    'Assertion',
    idpKey,
  );
  const acs = await fetch(`${saml()}/acs`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      SAMLResponse: encode(response(c, signed)),
      RelayState: new URL(location).searchParams.get('RelayState')!,
    }).toString(),
  });
  const code = new URL(acs.headers.get('location')!).searchParams.get('code')!;
  const exchanged = await call(
    `${t.base}/organizations/${orgId}/idp/open-id/exchange?redirect_uri=${encodeURIComponent(APP)}&code=${code}`,
    { method: 'POST' },
  );
  expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
  return exchanged.body.Token.access_token as string;
}

/** Signs in and logs out through Assent: the ID of the LogoutRequest Assent sent. */
async function loggedOut(nameId: string): Promise<string> {
  const token = await signIn(nameId, `_idx-${nameId}`);
  const out = await call(`${saml()}/logout?redirect_uri=${encodeURIComponent(APP)}`, { method: 'POST', token });
  expect(out.status).toBe(204);
  const link = /^<([^>]+)>; rel="end-session"$/.exec(out.headers.get('link') ?? '')![1]!;
  expect(link.startsWith(`${IDP_SLO}?SAMLRequest=`)).toBe(true);
  return requestIdOf(link);
}

const live = async (token: string) => (await call(`${t.base}/user`, { token })).status;
const redirect = (query: string) => fetch(`${slo()}?${query}`, { redirect: 'manual' });
const post = (body: string) =>
  fetch(slo(), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
const honest = (inResponseTo: string | null) => logoutResponse({ issuer: IDP, destination: slo(), inResponseTo });

/** Expects a 400 JSON error naming `reason`. */
async function refused(res: Response, reason: RegExp) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('application/json');
  const body = await res.json();
  expect(body.error_description ?? body.errorDescription ?? JSON.stringify(body)).toMatch(reason);
}

beforeAll(async () => {
  t = await startAssent();
  orgId = t.ids.organisations.acme!.id;
  const owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  [idpKey, otherKey] = await Promise.all([testKeyPair('forge-idp'), testKeyPair('someone-else')]);
  const idp = { entityId: IDP, ssoUrl: 'https://idp.example/sso', sloUrl: IDP_SLO };
  await configureSaml(t.base, orgId, owner, { ...idp, signingCertificates: [idpKey.certificate] }, APP);
  spCertificate = await spCertificateOf(t.base, orgId);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

describe('the SingleLogoutService bindings', () => {
  it('the SP metadata advertises SingleLogoutService on exactly HTTP-Redirect and HTTP-POST, at the SLO endpoint', async () => {
    const xml = await (await fetch(`${saml()}/metadata`)).text();
    const services = [...xml.matchAll(/<SingleLogoutService Binding="([^"]+)" Location="([^"]+)"\/>/g)];
    expect(services.map((m) => m[1])).toEqual([
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
      'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
    ]);
    expect(services.every((m) => m[2] === slo())).toBe(true);
  });

  it('an honest signed LogoutResponse on HTTP-Redirect sends the browser to the app', async () => {
    const id = await loggedOut('honest-redirect');
    const res = await redirect(redirectQuery('SAMLResponse', honest(id), idpKey, APP));
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe(APP);
  });

  it('an honest signed LogoutResponse on HTTP-POST (form) sends the browser to the app', async () => {
    const id = await loggedOut('honest-post');
    const res = await post(postForm('SAMLResponse', signRoot(honest(id), idpKey), APP));
    expect(res.status, await res.clone().text()).toBe(303);
    expect(res.headers.get('location')).toBe(APP);
  });

  it('a message on both parameters, or on neither, is a 400', async () => {
    await refused(await post('RelayState=x'), /one of SAMLRequest or SAMLResponse/);
    await refused(await redirect('SAMLRequest=a&SAMLResponse=b'), /one of SAMLRequest or SAMLResponse/);
  });
});

describe('a LogoutResponse must be signed, from the IdP, to the SLO endpoint, and answer a LogoutRequest once', () => {
  // Each refusal is followed by the honest answer to the same LogoutRequest, which must still pass:
  // the refused message changed nothing.
  const cases: [string, (id: string) => Promise<Response>, RegExp][] = [
    ['unsigned (HTTP-Redirect)', (id) => redirect(redirectQuery('SAMLResponse', honest(id), null)), /not signed/],
    ['unsigned (HTTP-POST)', (id) => post(postForm('SAMLResponse', honest(id))), /not signed/],
    [
      'signed by another key (HTTP-Redirect)',
      (id) => redirect(redirectQuery('SAMLResponse', honest(id), otherKey)),
      /not signed by a configured certificate/,
    ],
    [
      'signed by another key (HTTP-POST)',
      (id) => post(postForm('SAMLResponse', signRoot(honest(id), otherKey))),
      /not signed by a configured certificate/,
    ],
    [
      'sent to another Destination',
      (id) =>
        redirect(
          redirectQuery(
            'SAMLResponse',
            logoutResponse({ issuer: IDP, destination: 'https://other-sp.example/slo', inResponseTo: id }),
            idpKey,
          ),
        ),
      /Destination/,
    ],
    [
      'issued by another Issuer',
      (id) =>
        post(
          postForm(
            'SAMLResponse',
            signRoot(logoutResponse({ issuer: 'urn:other:idp', destination: slo(), inResponseTo: id }), idpKey),
          ),
        ),
      /Issuer/,
    ],
  ];
  for (const [name, send, reason] of cases)
    it(`a LogoutResponse ${name} is refused and changes nothing`, async () => {
      const id = await loggedOut(`case-${name.replace(/\W+/g, '-')}`);
      await refused(await send(id), reason);
      expect((await redirect(redirectQuery('SAMLResponse', honest(id), idpKey))).status).toBe(200);
    });

  it('a signed LogoutResponse without InResponseTo is refused', async () => {
    await refused(await redirect(redirectQuery('SAMLResponse', honest(null), idpKey)), /InResponseTo/);
  });

  it('a replayed LogoutResponse is refused: InResponseTo is single use', async () => {
    const id = await loggedOut('replayed');
    const query = redirectQuery('SAMLResponse', honest(id), idpKey, APP);
    expect((await redirect(query)).status).toBe(303);
    await refused(await redirect(query), /InResponseTo/);
    await refused(await post(postForm('SAMLResponse', signRoot(honest(id), idpKey))), /InResponseTo/);
  });

  it('a LogoutResponse answering an AuthnRequest’s ID is refused', async () => {
    const start = await fetch(`${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}`, { redirect: 'manual' });
    const authnRequestId = requestIdOf(start.headers.get('location')!);
    await refused(await redirect(redirectQuery('SAMLResponse', honest(authnRequestId), idpKey)), /InResponseTo/);
  });

  it('a LogoutResponse whose Status is not Success is refused', async () => {
    const id = await loggedOut('failed-at-idp');
    const xml = logoutResponse({ issuer: IDP, destination: slo(), inResponseTo: id, status: RESPONDER });
    await refused(await redirect(redirectQuery('SAMLResponse', xml, idpKey)), /logout failed/);
  });

  it('an HTTP-Redirect query repeating SAMLResponse is refused (the signature covers one copy)', async () => {
    const id = await loggedOut('repeated');
    const query = redirectQuery('SAMLResponse', honest(id), idpKey);
    const other = redirectQuery('SAMLResponse', honest(null), null);
    await refused(await redirect(`${other}&${query}`), /SAMLResponse/);
    expect((await redirect(query)).status).toBe(200);
  });
});

describe('IdP-initiated logout: a signed LogoutRequest ends the Assent sessions it names', () => {
  const request = (nameId: string, over: Partial<Parameters<typeof logoutRequest>[0]> = {}) =>
    logoutRequest({ issuer: IDP, destination: slo(), nameId, notOnOrAfter: 300, ...over });
  const sessionsOf = async (nameId: string) => {
    const [row] = rowsOf<{ n: number }>(
      await t.store.db.execute(sql`SELECT count(*)::int AS n FROM federation_sessions s
        JOIN federated_identities l ON l.user_id = s.user_id AND l.org_id = s.org_id
        WHERE l.issuer = ${IDP} AND l.subject = ${nameId}`),
    );
    return row!.n;
  };

  it('HTTP-Redirect with a SessionIndex ends that session only, and answers a signed Success to the IdP', async () => {
    const [a, b] = [await signIn('carol-0003', '_sA'), await signIn('carol-0003', '_sB')];
    const xml = request('carol-0003', { sessionIndexes: ['_sA'], id: '_idp-logout-1' });
    const res = await redirect(redirectQuery('SAMLRequest', xml, idpKey, 'idp-relay'));
    expect(res.status, await res.clone().text()).toBe(303);
    const location = res.headers.get('location')!;
    expect(location.startsWith(`${IDP_SLO}?SAMLResponse=`)).toBe(true);
    const answer = readSentResponse(location, spCertificate);
    expect(answer).toMatchObject({
      status: [SUCCESS],
      inResponseTo: '_idp-logout-1',
      destination: IDP_SLO,
      issuer: `${saml()}/metadata`,
      relayState: 'idp-relay',
    });
    expect(await live(a)).toBe(401);
    expect(await live(b)).toBe(200);
    expect(await sessionsOf('carol-0003')).toBe(1);
  });

  it('HTTP-POST without SessionIndex ends every session of the NameID', async () => {
    const [a, b] = [await signIn('dave-0004', '_sC'), await signIn('dave-0004', '_sD')];
    const other = await signIn('erin-0005', '_sE');
    const res = await post(postForm('SAMLRequest', signRoot(request('dave-0004'), idpKey)));
    expect(res.status).toBe(303);
    expect(readSentResponse(res.headers.get('location')!, spCertificate).status).toEqual([SUCCESS]);
    expect([await live(a), await live(b), await live(other)]).toEqual([401, 401, 200]);
  });

  it('a LogoutRequest naming no known session is answered Requester/UnknownPrincipal', async () => {
    const res = await redirect(redirectQuery('SAMLRequest', request('nobody-0000'), idpKey));
    expect(res.status).toBe(303);
    expect(readSentResponse(res.headers.get('location')!, spCertificate).status).toEqual([
      'urn:oasis:names:tc:SAML:2.0:status:Requester',
      'urn:oasis:names:tc:SAML:2.0:status:UnknownPrincipal',
    ]);
  });

  it('a LogoutRequest naming an EncryptedID is answered Requester/RequestUnsupported and ends nothing', async () => {
    const token = await signIn('heidi-0008', '_sH');
    const xml = request('heidi-0008').replace(
      /<saml:NameID[^>]*>[^<]*<\/saml:NameID>/,
      '<saml:EncryptedID><xenc:EncryptedData xmlns:xenc="http://www.w3.org/2001/04/xmlenc#"/></saml:EncryptedID>',
    );
    const res = await redirect(redirectQuery('SAMLRequest', xml, idpKey));
    expect(res.status).toBe(303);
    expect(readSentResponse(res.headers.get('location')!, spCertificate).status).toEqual([
      'urn:oasis:names:tc:SAML:2.0:status:Requester',
      'urn:oasis:names:tc:SAML:2.0:status:RequestUnsupported',
    ]);
    expect(await live(token)).toBe(200);
  });

  const forged: [string, () => Promise<Response>, RegExp][] = [
    [
      'unsigned (HTTP-Redirect)',
      () => redirect(redirectQuery('SAMLRequest', request('frank-0006'), null)),
      /not signed/,
    ],
    ['unsigned (HTTP-POST)', () => post(postForm('SAMLRequest', request('frank-0006'))), /not signed/],
    [
      'signed by another key',
      () => post(postForm('SAMLRequest', signRoot(request('frank-0006'), otherKey))),
      /not signed by a configured certificate/,
    ],
    [
      'from another Issuer',
      () => redirect(redirectQuery('SAMLRequest', request('frank-0006', { issuer: 'urn:other:idp' }), idpKey)),
      /Issuer/,
    ],
    [
      'sent to another Destination',
      () =>
        redirect(
          redirectQuery('SAMLRequest', request('frank-0006', { destination: 'https://other-sp.example/slo' }), idpKey),
        ),
      /Destination/,
    ],
    [
      'past its NotOnOrAfter',
      () =>
        redirect(redirectQuery('SAMLRequest', request('frank-0006', { issuedAt: -400, notOnOrAfter: -300 }), idpKey)),
      /NotOnOrAfter/,
    ],
  ];
  for (const [name, send, reason] of forged)
    it(`a LogoutRequest ${name} is refused and ends nothing`, async () => {
      const token = await signIn('frank-0006', '_sF');
      await refused(await send(), reason);
      expect(await live(token)).toBe(200);
    });

  it('a replayed LogoutRequest is refused and does not end the sessions opened since', async () => {
    const query = redirectQuery('SAMLRequest', request('grace-0007'), idpKey);
    const first = await signIn('grace-0007', '_sG1');
    expect((await redirect(query)).status).toBe(303);
    expect(await live(first)).toBe(401);
    const second = await signIn('grace-0007', '_sG2');
    await refused(await redirect(query), /replay/);
    expect(await live(second)).toBe(200);
  });
});
