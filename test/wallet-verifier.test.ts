/**
 * The OpenID4VP verifier behind wallet sign-in (SPEC 4.1; ../shared/WALLET.md §4.3–4.5, §5.2):
 * the positive scenarios, driven over HTTP by the test wallet (request_uri, response_uri), with the
 * transaction started in-process through `ctx.wallet.start` and the outcome read through
 * `ctx.wallet` (the provider's page is built separately).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/open.js';
import { redirectUriImport } from '../src/federation/redirect-uris.js';
import { runImport } from '../src/orgs/import.js';
import { WalletFlowError } from '../src/wallet/sign-in.js';
import { call, login } from './helpers/assent.js';
import { holderKey, issue } from './helpers/wallet/issuer.js';
import { responseCodeOf, startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';
import { TestWallet } from './helpers/wallet/wallet.js';

let h: WalletHarness;

beforeAll(async () => {
  h = await startWalletHarness();
}, 60_000);
afterAll(async () => h?.stop());

/** One complete sign-in: start, resolve, present; returns the uid and the answer. */
async function signIn(opts: { credential?: string; wallet?: TestWallet; orgId?: string } = {}) {
  const { uid, deepLink } = await h.start(opts.orgId);
  const wallet = opts.wallet ?? h.wallet;
  const request = await wallet.resolve(deepLink);
  const answer = await wallet.present(request, opts.credential ?? (await h.credential()));
  return { uid, deepLink, request, answer };
}

describe('positive scenarios (WALLET.md §5.2)', () => {
  it('1. cross-device, x509_hash + signed request + direct_post.jwt (A128GCM): verified, completed once by polling', async () => {
    const { uid, deepLink, request, answer } = await signIn();
    expect(deepLink).toMatch(/^openid4vp:\/\/\?client_id=x509_hash%3A[^&]+&request_uri=http/);
    expect(request.payload.response_mode).toBe('direct_post.jwt');
    expect(answer.status).toBe(200);
    expect(answer.body.redirect_uri).toBe(
      `${h.t.ctx.wallet.issuerOf(h.orgId)}/interaction/${uid}/wallet-return?response_code=${responseCodeOf(answer.body)}`,
    );
    expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'verified' });
    const login = await h.t.ctx.wallet.complete(h.orgId, uid);
    expect(login).toMatchObject({ acr: 'urn:assent:acr:wallet', amr: ['pop'] });
    expect(Math.abs(login.authTime - Date.now() / 1000)).toBeLessThan(10);
    expect(await h.t.ctx.wallet.claimsOf(h.orgId, login.accountId)).toEqual({
      email: 'alice.wallet@example.test',
      email_verified: true,
    });
    await expect(h.t.ctx.wallet.complete(h.orgId, uid)).rejects.toThrow(WalletFlowError);
  });

  it('4. same-device: the response_code completes the sign-in, once; a wrong code does not', async () => {
    const { uid, answer } = await signIn();
    await expect(h.t.ctx.wallet.complete(h.orgId, uid, 'not-the-code')).rejects.toMatchObject({
      reason: 'wrong_response_code',
    });
    const code = responseCodeOf(answer.body);
    expect((await h.t.ctx.wallet.complete(h.orgId, uid, code)).accountId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(h.t.ctx.wallet.complete(h.orgId, uid, code)).rejects.toMatchObject({ reason: 'used' });
  });

  it('the same credential signs in the same individual, subscribed to the organisation, audited without personal data', async () => {
    const a = await signIn();
    const b = await signIn();
    const first = await h.t.ctx.wallet.complete(h.orgId, a.uid);
    const second = await h.t.ctx.wallet.complete(h.orgId, b.uid);
    expect(second.accountId).toBe(first.accountId);
    const subscribed = rowsOf(
      await h.t.store.db.execute(
        sql`SELECT 1 FROM subscriptions WHERE user_id = ${first.accountId} AND org_id = ${h.orgId}`,
      ),
    );
    expect(subscribed.length).toBeGreaterThan(0);
    const log = await call(`${h.t.base}/organizations/${h.orgId}/audit-log?limit=100`, { token: h.ownerToken });
    const signIns = (log.body.Entries as { Action: string; Detail: Record<string, unknown> }[]).filter(
      (e) => e.Action === 'wallet.sign-in',
    );
    expect(signIns.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(signIns)).not.toContain('alice.wallet@example.test');
    expect(signIns[0]!.Detail).toMatchObject({ userId: expect.any(String), clientId: 'web-shop' });
  });

  it('a different holder with another e-mail address is another individual, named from the credential', async () => {
    const other = new TestWallet(await holderKey());
    const credential = await issue({
      holder: other.holder,
      signer: h.pki.issuer,
      claims: { email_address: 'bob.wallet@example.test', given_name: 'Bob', family_name: 'Wallet' },
    });
    const a = await signIn({ wallet: other, credential });
    const b = await signIn();
    const bob = await h.t.ctx.wallet.complete(h.orgId, a.uid);
    const alice = await h.t.ctx.wallet.complete(h.orgId, b.uid);
    expect(bob.accountId).not.toBe(alice.accountId);
    const [row] = rowsOf<{ name: string; email: string }>(
      await h.t.store.db.execute(sql`SELECT name, email FROM users WHERE id = ${bob.accountId}`),
    );
    expect(row).toEqual({ name: '', email: 'bob.wallet@example.test' });
  });

  it('2. A256GCM, and plain direct_post when responseEncryption is []', async () => {
    expect(
      (await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], responseEncryption: ['A256GCM'] })).status,
    ).toBe(200);
    const enc = await signIn();
    expect(enc.request.payload.client_metadata.encrypted_response_enc_values_supported).toEqual(['A256GCM']);
    expect(enc.answer.status).toBe(200);
    expect((await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], responseEncryption: [] })).status).toBe(
      200,
    );
    const plain = await signIn();
    expect(plain.request.payload.response_mode).toBe('direct_post');
    expect(plain.answer.status).toBe(200);
    expect(await h.t.ctx.wallet.outcome(h.orgId, plain.uid)).toEqual({ status: 'verified' });
    await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], responseEncryption: ['A128GCM', 'A256GCM'] });
  });

  it('3. compatibility profile: redirect_uri client id, request by value, plain direct_post', async () => {
    expect((await h.configure({ profile: 'compat', trustedIssuerCertificates: [h.pki.root.pem] })).status).toBe(200);
    try {
      const { uid, deepLink, request, answer } = await signIn();
      expect(deepLink).not.toContain('request_uri=');
      expect(request.payload.client_id).toBe(`redirect_uri:${h.t.ctx.wallet.issuerOf(h.orgId)}/oid4vp/response`);
      expect(request.payload.response_mode).toBe('direct_post');
      expect(answer.status).toBe(200);
      expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'verified' });
    } finally {
      await h.configure({ profile: 'haip', trustedIssuerCertificates: [h.pki.root.pem] });
    }
  });

  it('5. a PID-like credential with claim_sets and credential_sets; the mapped claims reach claimsOf', async () => {
    const dcqlQuery = {
      credentials: [
        {
          id: 'pid',
          format: 'dc+sd-jwt',
          meta: { vct_values: ['urn:eudi:pid:1'] },
          claims: [
            { id: 'e', path: ['email_address'] },
            { id: 'g', path: ['given_name'] },
            { id: 'f', path: ['family_name'] },
            { id: 'b', path: ['birthdate'] },
          ],
          claim_sets: [
            ['e', 'g', 'f'],
            ['e', 'b'],
          ],
        },
        {
          id: 'authenticator',
          format: 'dc+sd-jwt',
          meta: { vct_values: ['io.igrant.authenticator'] },
          claims: [{ path: ['email_address'] }],
        },
      ],
      credential_sets: [{ options: [['pid'], ['authenticator']] }],
    };
    const claimMapping = { email: ['email_address'], given_name: ['given_name'], family_name: ['family_name'] };
    const put = await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], dcqlQuery, claimMapping });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    try {
      const pid = await h.credential({
        vct: 'urn:eudi:pid:1',
        claims: {
          email_address: 'dora.pid@example.test',
          given_name: 'Dora',
          family_name: 'Pid',
          birthdate: '1990-01-01',
        },
      });
      const a = await h.start();
      const request = await h.wallet.resolve(a.deepLink);
      const ok = await h.wallet.present(request, pid, { disclose: ['email_address', 'given_name', 'family_name'] });
      expect(ok.status).toBe(200);
      const dora = await h.t.ctx.wallet.complete(h.orgId, a.uid);
      expect(await h.t.ctx.wallet.claimsOf(h.orgId, dora.accountId)).toEqual({
        email: 'dora.pid@example.test',
        email_verified: true,
        given_name: 'Dora',
        family_name: 'Pid',
      });
      const [row] = rowsOf<{ name: string }>(
        await h.t.store.db.execute(sql`SELECT name FROM users WHERE id = ${dora.accountId}`),
      );
      expect(row!.name).toBe('Dora Pid');
      const b = await h.start();
      const partial = await h.wallet.present(await h.wallet.resolve(b.deepLink), pid, {
        disclose: ['given_name', 'family_name'],
      });
      expect(partial.status).toBe(400);
      const c = await h.start();
      const other = await h.wallet.resolve(c.deepLink);
      const viaAuthenticator = await h.wallet.submit(other, {
        authenticator: [await h.wallet.presentation(other, await h.credential())],
      });
      expect(viaAuthenticator.status).toBe(200);
    } finally {
      await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], dcqlQuery: undefined, claimMapping: undefined });
    }
  });

  it('a supplied verifier chain: the wallet checks the request object against the verifier CA', async () => {
    const put = await h.configure({
      trustedIssuerCertificates: [h.pki.root.pem],
      verifierCertificateChain: h.pki.verifier.pem + h.pki.verifierRoot.pem,
      verifierPrivateKey: h.pki.verifier.privatePem,
    });
    expect(put.status).toBe(200);
    try {
      const strict = new TestWallet(h.wallet.holder, [h.pki.verifierRoot.pem]);
      const { uid, answer } = await signIn({ wallet: strict });
      expect(answer.status).toBe(200);
      expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'verified' });
    } finally {
      await h.configure({ generateVerifierKey: true, trustedIssuerCertificates: [h.pki.root.pem] });
    }
  });

  it('a credential with a status list entry that is valid is accepted', async () => {
    const uri = h.status.list('good', h.pki.statusSigner);
    const { uid, answer } = await signIn({ credential: await h.credential({ status: { idx: 3, uri } }) });
    expect(answer.status).toBe(200);
    expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'verified' });
  });

  it('a status list with a ttl is fetched once and reused within it; without ttl it is fetched every time', async () => {
    const cached = h.status.list('cached', h.pki.statusSigner);
    h.status.tamper('cached', { ttl: 120 });
    for (let i = 0; i < 2; i++) {
      const { answer } = await signIn({ credential: await h.credential({ status: { idx: i, uri: cached } }) });
      expect(answer.status).toBe(200);
    }
    expect(h.status.fetches.get('cached')).toBe(1);
    const fresh = h.status.list('fresh', h.pki.statusSigner);
    for (let i = 0; i < 2; i++)
      expect((await signIn({ credential: await h.credential({ status: { idx: i, uri: fresh } }) })).answer.status).toBe(
        200,
      );
    expect(h.status.fetches.get('fresh')).toBe(2);
  });

  it('the request object: signed, typed, no-store, served once (WALLET.md §4.3)', async () => {
    const { deepLink } = await h.start();
    const requestUri = new URL(deepLink).searchParams.get('request_uri')!;
    const first = await fetch(requestUri);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toContain('application/oauth-authz-req+jwt');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const [header, payload] = (await first.text())
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt', x5c: [expect.any(String)] });
    expect(payload).toMatchObject({
      aud: 'https://self-issued.me/v2',
      response_type: 'vp_token',
      response_mode: 'direct_post.jwt',
      dcql_query: {
        credentials: [{ id: 'authenticator', format: 'dc+sd-jwt', meta: { vct_values: ['io.igrant.authenticator'] } }],
      },
    });
    expect(payload.exp - payload.iat).toBeLessThanOrEqual(300);
    expect(payload.client_metadata.jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' });
    expect(payload.client_metadata.jwks.keys[0].d).toBeUndefined();
  });

  it('6. two organisations with distinct issuers and verifier keys: a credential of one is refused by the other', async () => {
    const bravo = await runImport(
      h.t.store.db,
      {
        organisations: [
          {
            key: 'bravo',
            name: 'Bravo',
            location: 'Oslo',
            type: 'Retail',
            admins: [{ username: 'owner@bravo.example', password: 'bravo-owner-passphrase', roles: ['owner'] }],
          },
        ],
      },
      h.t.config.argon2,
      redirectUriImport,
    );
    const bravoId = bravo.organisations.bravo!.id;
    const token = (await login(h.t, 'owner@bravo.example', 'bravo-owner-passphrase')).Token.access_token;
    const put = await call(`${h.t.base}/organizations/${bravoId}/wallet`, {
      method: 'PUT',
      token,
      body: { generateVerifierKey: true, trustedIssuerCertificates: [h.pki.root2.pem] },
    });
    expect(put.status).toBe(200);
    const acme = await call(`${h.t.base}/organizations/${h.orgId}/wallet`, { token: h.ownerToken });
    expect(put.body.verifierClientId).not.toBe(acme.body.verifierClientId);
    const bravoCredential = await h.credential({ signer: h.pki.issuer2, iss: 'https://issuer2.test' });
    const atBravo = await signIn({ orgId: bravoId, credential: bravoCredential });
    expect(atBravo.answer.status).toBe(200);
    expect(atBravo.answer.body.redirect_uri).toContain(`/oidc/${bravoId}/interaction/`);
    const atAcme = await signIn({ credential: bravoCredential });
    expect(atAcme.answer.status).toBe(400);
    const acmeAtBravo = await signIn({ orgId: bravoId });
    expect(acmeAtBravo.answer.status).toBe(400);
    const bravoLogin = await h.t.ctx.wallet.complete(bravoId, atBravo.uid);
    expect(await h.t.ctx.wallet.claimsOf(h.orgId, bravoLogin.accountId)).toEqual({});
  });
});

describe('completion rules and account lifecycle', () => {
  it('sameDeviceOnly: completion needs the response_code; polling completion is refused (HAIP 1.0 §5.1)', async () => {
    expect((await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], sameDeviceOnly: true })).status).toBe(200);
    try {
      const { uid, answer } = await signIn();
      await expect(h.t.ctx.wallet.complete(h.orgId, uid)).rejects.toMatchObject({ reason: 'same_device_only' });
      expect((await h.t.ctx.wallet.complete(h.orgId, uid, responseCodeOf(answer.body))).accountId).toBeTruthy();
    } finally {
      await h.configure({ trustedIssuerCertificates: [h.pki.root.pem] });
    }
  });

  it('two responses at once to one transaction: exactly one is accepted (single use)', async () => {
    const { uid, deepLink } = await h.start();
    const request = await h.wallet.resolve(deepLink);
    const credential = await h.credential();
    const answers = await Promise.all([h.wallet.present(request, credential), h.wallet.present(request, credential)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'verified' });
  });

  it('a new code for the interaction replaces the old transaction; the page sees the new one', async () => {
    const first = await h.start();
    const { uid } = first;
    const view = await h.t.ctx.wallet.start({ orgId: h.orgId, interactionUid: uid, clientId: 'web-shop' });
    expect(view.deepLink).not.toBe(first.deepLink);
    expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'pending' });
    const request = await h.wallet.resolve(view.deepLink);
    expect((await h.wallet.present(request, await h.credential())).status).toBe(200);
    expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'verified' });
  });

  it('account deletion erases the credential link and its claims; the next sign-in is a new individual', async () => {
    const other = new TestWallet(await holderKey());
    const credential = await issue({
      holder: other.holder,
      signer: h.pki.issuer,
      claims: { email_address: 'carol.wallet@example.test' },
    });
    const a = await signIn({ wallet: other, credential });
    const carol = await h.t.ctx.wallet.complete(h.orgId, a.uid);
    await h.t.ctx.accounts.delete(carol.accountId);
    const left = rowsOf(
      await h.t.store.db.execute(sql`SELECT 1 FROM wallet_identities WHERE user_id = ${carol.accountId}`),
    );
    expect(left).toHaveLength(0);
    expect(await h.t.ctx.wallet.claimsOf(h.orgId, carol.accountId)).toEqual({});
    const b = await signIn({ wallet: other, credential });
    expect((await h.t.ctx.wallet.complete(h.orgId, b.uid)).accountId).not.toBe(carol.accountId);
  });

  it('ended transactions are purged after their grace period', async () => {
    const { uid } = await h.start();
    await h.t.store.db.execute(
      sql`UPDATE wallet_transactions SET expires_at = now() - interval '11 minutes' WHERE interaction_uid = ${uid}`,
    );
    const { purgeWalletTransactions } = await import('../src/wallet/flow.js');
    expect(await purgeWalletTransactions(h.t.store.db)).toBeGreaterThanOrEqual(1);
    expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'expired' });
  });
});
