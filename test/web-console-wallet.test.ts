/**
 * The console's wallet settings form over HTTP (docs/web.md "Console"; docs/wallet.md "Wallet
 * settings"): an owner sets them up and edits them through `WalletSettingsService`, read back through
 * the JSON API; the form as shown, sent back unchanged, changes nothing; the verifier's private key is
 * write-only; input the service refuses is a 4xx beside the form and changes nothing; a DPO and a
 * post without the CSRF token change nothing; deletion takes the confirmation step.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import { selfSigned } from './helpers/wallet/pki.js';
import { formValues } from './helpers/web-client.js';

const s = consoleSuite();
const page = () => `/console/${s.org.orgId}/integrations`;
const action = () => `${page()}/wallet`;
const apiWallet = () => call(`${s.t.base}/organizations/${s.org.orgId}/wallet`, { token: s.org.tokens.owner });
const audit = async () =>
  (
    await call(`${s.t.base}/organizations/${s.org.orgId}/audit-log?action=wallet.settings.update`, {
      token: s.org.tokens.owner,
    })
  ).body.Entries as Array<{ Detail: { fields: string[] } }>;
const walletSection = (html: string) =>
  /<section class="card" aria-labelledby="wallet">[\s\S]*?<\/section>/.exec(html)![0];
const MEMBER_QUERY = {
  credentials: [
    {
      id: 'member',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://shop.example/member', 'io.igrant.authenticator'] },
      claims: [{ path: ['email_address'] }, { path: ['given_name'] }],
    },
  ],
};

/** The form as the owner's page shows it, with `over` changed (`''` leaves a field out, as an unticked box). */
async function shownForm(over: Record<string, string> = {}) {
  const owner = await s.as('shop-owner@shop.example');
  const html = await (await owner.get(page())).text();
  const values = { ...formValues(html, action()), ...over };
  return { owner, html, values: Object.fromEntries(Object.entries(values).filter(([, v]) => v !== '')) };
}

describe('an owner sets up and edits the wallet settings from the console', () => {
  it('sets them up with a generated key, two trust anchors and a query; the JSON API reads them back', async () => {
    const [a, b] = [await selfSigned('Shop Member CA'), await selfSigned('Shop Partner CA')];
    const { owner, values } = await shownForm({
      trustedissuers: `${a.pem}\n${b.pem}`,
      dcqlquery: JSON.stringify(MEMBER_QUERY),
      claimmapping: '{"email": ["email_address"], "given_name": ["given_name"]}',
      deeplinkscheme: 'haip-vp://',
      samedeviceonly: 'on',
      a128gcm: '',
    });
    expect(values.generatekey).toBe('on');
    const res = await owner.post(action(), values);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${page()}?done=wallet`);
    const w = (await apiWallet()).body;
    expect(w).toMatchObject({
      profile: 'haip',
      dcqlQuery: MEMBER_QUERY,
      claimMapping: { email: ['email_address'], given_name: ['given_name'] },
      stableClaim: 'email_address',
      sameDeviceOnly: true,
      deepLinkScheme: 'haip-vp://',
      responseEncryption: ['A256GCM'],
    });
    expect(w.trustedIssuerCertificates.map((p: string) => p.trim())).toEqual([a.pem.trim(), b.pem.trim()]);
    expect(w.verifierClientId).toMatch(/^x509_hash:/);
    const html = await (await owner.get(page())).text();
    expect(walletSection(html)).toContain('<dd>https://shop.example/member, io.igrant.authenticator</dd>');
    expect(html).toContain('CN=Shop Partner CA');
    expect(html).not.toContain('PRIVATE KEY');
  });

  it('the form as shown, sent back unchanged, changes nothing: same key, no audit entry', async () => {
    const before = (await apiWallet()).body;
    const entries = (await audit()).length;
    const { owner, html, values } = await shownForm();
    expect(values.generatekey).toBeUndefined();
    // Write-only: the key's textarea is always empty.
    expect(html).toMatch(/name="verifierkey"[^>]*><\/textarea>/);
    const res = await owner.post(action(), values);
    expect(res.status).toBe(303);
    expect((await apiWallet()).body).toEqual(before);
    expect(await audit()).toHaveLength(entries);
  });

  it('an edit changes one field and keeps the stored key (the key field left empty)', async () => {
    const before = (await apiWallet()).body;
    const { owner, values } = await shownForm({ samedeviceonly: '', profile: 'compat' });
    expect((await owner.post(action(), values)).status).toBe(303);
    const after = (await apiWallet()).body;
    expect(after).toMatchObject({ profile: 'compat', sameDeviceOnly: false });
    expect(after.verifierClientId).toBe(before.verifierClientId);
    expect((await audit())[0]!.Detail.fields).toEqual(['profile', 'sameDeviceOnly']);
  });

  it('an externally issued key and chain replace the generated ones; the key is never shown', async () => {
    const verifier = await selfSigned('verifier.shop.example', false);
    const { owner, values } = await shownForm({ verifierchain: verifier.pem, verifierkey: verifier.privatePem });
    expect((await owner.post(action(), values)).status).toBe(303);
    const w = (await apiWallet()).body;
    expect(w.verifierCertificateChain.trim()).toBe(verifier.pem.trim());
    expect((await audit())[0]!.Detail.fields).toEqual(['verifierCertificateChain', 'verifierPrivateKey']);
    const html = await (await owner.get(page())).text();
    expect(html).toContain('CN=verifier.shop.example');
    expect(html).not.toContain('PRIVATE KEY');
  });
});

describe('input the service refuses shows beside the form with its 4xx, and changes nothing', () => {
  it.each([
    ['a certificate that is not a CA', async () => ({ trustedissuers: (await selfSigned('Leaf', false)).pem })],
    ['text outside the PEM blocks', async () => ({ trustedissuers: 'not a certificate' })],
    ['a DCQL query that is not JSON', async () => ({ dcqlquery: '{"credentials": [' })],
    ['a poisoned claim mapping', async () => ({ claimmapping: '{"__proto__": {"x": ["y"]}}' })],
    ['an http deep-link scheme', async () => ({ deeplinkscheme: 'https://' })],
    ['a javascript: deep-link scheme', async () => ({ deeplinkscheme: 'javascript://' })],
    ['a data: deep-link scheme', async () => ({ deeplinkscheme: 'data://' })],
    ['a vbscript: deep-link scheme', async () => ({ deeplinkscheme: 'vbscript://' })],
    ['a file: deep-link scheme', async () => ({ deeplinkscheme: 'file://' })],
    ['a private key that does not match the chain', async () => ({ verifierkey: (await selfSigned('x')).privatePem })],
  ])('%s', async (_name, change) => {
    const before = (await apiWallet()).body;
    const over = await change();
    const { owner, values } = await shownForm(over);
    const res = await owner.post(action(), values);
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(walletSection(html)).toMatch(/<p class="error" role="alert">Invalid wallet settings: /);
    if ('deeplinkscheme' in over) expect(walletSection(html)).toContain('deepLinkScheme: ');
    expect(html).not.toContain('PRIVATE KEY');
    expect((await apiWallet()).body).toEqual(before);
  });
});

describe('who may change the wallet settings', () => {
  it('a DPO is refused 403 (the API’s rule); a post without the CSRF token is refused 403', async () => {
    const before = (await apiWallet()).body;
    const { owner, values } = await shownForm({ samedeviceonly: 'on' });
    const dpo = await s.as('shop-dpo@shop.example');
    expect((await dpo.post(action(), { ...values, _csrf: await dpo.csrf() })).status).toBe(403);
    expect((await dpo.post(`${action()}/delete`, { confirm: 'on', _csrf: await dpo.csrf() })).status).toBe(403);
    const { _csrf, ...withoutToken } = values;
    expect((await owner.post(action(), withoutToken)).status).toBe(403);
    expect((await apiWallet()).body).toEqual(before);
  });

  it('deletion needs the confirmation box; then the JSON API has no settings', async () => {
    const owner = await s.as('shop-owner@shop.example');
    expect((await owner.post(`${action()}/delete`, { _csrf: await owner.csrf() })).status).toBe(400);
    expect((await apiWallet()).status).toBe(200);
    const res = await owner.post(`${action()}/delete`, { confirm: 'on', _csrf: await owner.csrf() });
    expect(res.status).toBe(303);
    expect((await apiWallet()).status).toBe(404);
    expect(await (await owner.get(page())).text()).toContain('Wallet sign-in is not set up.');
  });
});
