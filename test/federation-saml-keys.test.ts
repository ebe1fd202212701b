/**
 * Assent's SAML SP keys against SimpleSAMLphp (test/helpers/saml-idp.ts), through a real
 * `assent serve` and the real CLI (docs/operations.md "Key rotation"): `assent keys rotate` stages
 * the next signing and encryption certificates (published in the SP metadata, not used), an IdP
 * that pinned the old signing certificate keeps signing users in, `assent keys activate-saml`
 * switches (an IdP configured with the new certificate signs in; the old one stays published), and
 * assertions the IdP encrypts to Assent's encryption certificate (the active one, and the retired
 * one during the overlap) sign in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { runCli } from './helpers/cli.js';
import { Browser } from './helpers/oidc.js';
import { driveSaml, samlIdpAvailable, startSamlIdp, type TestSamlIdp } from './helpers/saml-idp.js';
import { APP, metadataCertificates, type ServedOrg, serveOrg } from './helpers/saml-served.js';

const available = samlIdpAvailable();
let s: ServedOrg;
let owner: string;
const idps: TestSamlIdp[] = [];
const saml = () => `${s.server.base}/organizations/${s.orgId}/idp/saml`;

/** The certificates of `use` in the SP metadata, in order. */
async function published(use: 'signing' | 'encryption'): Promise<string[]> {
  return metadataCertificates(await (await fetch(`${saml()}/metadata`)).text(), use);
}

/** Starts SimpleSAMLphp pinned to `certificate` (and encrypting to `encryptionCertificate`), and configures Assent with it. */
async function useIdp(certificate: string, encryptionCertificate?: string): Promise<TestSamlIdp> {
  const idp = await startSamlIdp({
    entityId: `${saml()}/metadata`,
    acsUrl: `${saml()}/acs`,
    sloUrl: `${saml()}/logout/callback`,
    certificate,
    ...(encryptionCertificate ? { encryptionCertificate } : {}),
  });
  idps.push(idp);
  const first = idps.length === 1;
  const res = await call(saml(), {
    method: first ? 'POST' : 'PUT',
    token: owner,
    body: { metadataUrl: idp.metadataUrl },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(first ? 201 : 200);
  return idp;
}

/** Signs alice in through the configured IdP; the app's query parameters and the SAMLResponse posted. */
async function signIn(state: string) {
  const authorize = `${saml()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=${state}`;
  const res = await driveSaml(new Browser(), authorize, APP, { username: 'alice', password: 'alicepass' });
  expect(res.location, res.last).toBeTruthy();
  return {
    params: new URL(res.location!).searchParams,
    response: Buffer.from(res.samlResponse ?? '', 'base64').toString('utf8'),
  };
}

let signing0: string;
let encryption0: string;
let signing1: string;
let encryption1: string;

describe.skipIf(!available)('SAML SP key rollover and encrypted assertions with SimpleSAMLphp', () => {
  beforeAll(async () => {
    s = await serveOrg({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1' });
    owner = s.owner;
  }, 90_000);
  afterAll(async () => {
    for (const idp of idps) await idp.close();
    await s?.close();
  });

  it('at first the metadata publishes one signing and one encryption certificate, and sign-in works', async () => {
    const signing = await published('signing');
    const encryption = await published('encryption');
    expect(signing).toHaveLength(1);
    expect(encryption).toHaveLength(1);
    [signing0, encryption0] = [signing[0]!, encryption[0]!];
    expect(encryption0).not.toBe(signing0);
    await useIdp(signing0);
    expect((await signIn('a')).params.get('code')).toMatch(/^asc_/);
  }, 60_000);

  it('assent keys rotate stages the next certificates: published after the current ones; the IdP pinned to the old one still signs in', async () => {
    const res = await runCli(['keys', 'rotate'], s.env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).samlStaged).toEqual(['signing', 'encryption']);
    const signing = await published('signing');
    const encryption = await published('encryption');
    expect(signing).toHaveLength(2);
    expect(encryption).toHaveLength(2);
    expect(signing[0]).toBe(signing0);
    expect(encryption[0]).toBe(encryption0);
    [signing1, encryption1] = [signing[1]!, encryption[1]!];
    // SimpleSAMLphp checks the AuthnRequest's signature against the one certificate it pinned.
    const back = await signIn('b');
    expect(back.params.get('error')).toBeNull();
    expect(back.params.get('code')).toMatch(/^asc_/);
    // Rotating again while a key is staged stages nothing more.
    const again = await runCli(['keys', 'rotate'], s.env);
    expect(JSON.parse(again.stdout).samlStaged).toEqual([]);
    expect(await published('signing')).toEqual([signing0, signing1]);
  }, 60_000);

  it('assent keys activate-saml switches: an IdP configured with the new certificate signs in; the old one stays published', async () => {
    const res = await runCli(['keys', 'activate-saml'], s.env);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).samlActivated).toEqual(['signing', 'encryption']);
    expect(await published('signing')).toEqual([signing1, signing0]);
    expect(await published('encryption')).toEqual([encryption1, encryption0]);
    await useIdp(signing1);
    const back = await signIn('c');
    expect(back.params.get('error')).toBeNull();
    expect(back.params.get('code')).toMatch(/^asc_/);
    const none = await runCli(['keys', 'activate-saml'], s.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no SAML SP key is staged/);
  }, 60_000);

  it('assertions SimpleSAMLphp encrypts to the active encryption certificate, or to the retired one during the overlap, sign in', async () => {
    for (const [state, encryption] of [
      ['e1', encryption1],
      ['e0', encryption0],
    ] as const) {
      await useIdp(signing1, encryption);
      const back = await signIn(state);
      expect(back.response).toContain('EncryptedAssertion');
      expect(back.response).not.toMatch(/<saml:Assertion[\s>]/);
      expect(back.params.get('error_description'), state).toBeNull();
      expect(back.params.get('code')).toMatch(/^asc_/);
    }
  }, 60_000);
});
