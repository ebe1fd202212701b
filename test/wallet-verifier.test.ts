/**
 * The OpenID4VP verifier behind wallet sign-in (docs/api.md "Authorization endpoint"; docs/wallet.md "Wallet settings", "The
 * verifier", "Verification steps"): the positive scenarios, driven over HTTP: a relying party's
 * `/auth` in a cookie-keeping user agent, the wallet page's deep link handed to the test wallet
 * (request_uri, response_uri), the page's status endpoint, its completion, and the code redeemed
 * for the ID token.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login } from './helpers/assent.js';
import { finishSignIn, pageStatus, tryFinish } from './helpers/wallet/flow.js';
import { holderKey, issue } from './helpers/wallet/issuer.js';
import { responseCodeOf, startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';
import { TestWallet } from './helpers/wallet/wallet.js';

let h: WalletHarness;

beforeAll(async () => {
  h = await startWalletHarness();
}, 60_000);
afterAll(async () => h?.stop());

/** One sign-in up to the wallet's answer: /auth, the page, resolve, present; returns the flow and the answer. */
async function signIn(opts: { credential?: string; wallet?: TestWallet; orgId?: string; token?: string } = {}) {
  const flow = await h.start(opts.orgId, opts.token);
  const wallet = opts.wallet ?? h.wallet;
  const request = await wallet.resolve(flow.deepLink);
  const answer = await wallet.present(request, opts.credential ?? (await h.credential()));
  return { flow, uid: flow.uid, deepLink: flow.deepLink, request, answer };
}

/** Completes a verified sign-in in its browser (cross-device) and redeems the code: the ID token's claims. */
async function idTokenOf(flow: Parameters<typeof finishSignIn>[0], responseCode?: string) {
  return h.redeem(await finishSignIn(flow, responseCode));
}

describe('positive scenarios', () => {
  it('1. cross-device, x509_hash + signed request + direct_post.jwt (A128GCM): verified, completed once by polling', async () => {
    const { flow, uid, deepLink, request, answer } = await signIn();
    expect(deepLink).toMatch(/^openid4vp:\/\/\?client_id=x509_hash%3A[^&]+&request_uri=http/);
    expect(request.payload.response_mode).toBe('direct_post.jwt');
    expect(answer.status).toBe(200);
    expect(answer.body.redirect_uri).toBe(
      `${h.issuerOf()}/interaction/${uid}/wallet-return?response_code=${responseCodeOf(answer.body)}`,
    );
    expect(await pageStatus(flow)).toEqual({
      status: 'verified',
      next: `${new URL(h.issuerOf()).pathname}/interaction/${uid}/complete`,
    });
    const claims = await idTokenOf(flow);
    expect(claims).toMatchObject({
      acr: 'urn:assent:acr:wallet',
      amr: ['pop'],
      email: 'alice.wallet@example.test',
      email_verified: true,
    });
    expect(Math.abs((claims.auth_time as number) - Date.now() / 1000)).toBeLessThan(10);
    expect((await tryFinish(flow)).rp).toBeNull();
  });

  it('4. same-device: the response_code completes the sign-in, once; a wrong code does not', async () => {
    const { flow, answer } = await signIn();
    const wrong = await tryFinish(flow, 'not-the-code');
    expect(wrong).toMatchObject({ rp: null, status: 400 });
    const code = responseCodeOf(answer.body);
    expect((await idTokenOf(flow, code)).sub).toMatch(/^[0-9a-f-]{36}$/);
    expect((await tryFinish(flow, code)).rp).toBeNull();
  });

  it('the same credential signs in the same individual, subscribed to the organisation, audited without personal data', async () => {
    const a = await signIn();
    const b = await signIn();
    const first = await idTokenOf(a.flow);
    const second = await idTokenOf(b.flow);
    expect(second.sub).toBe(first.sub);
    const users = await call(`${h.t.base}/organizations/${h.orgId}/users?limit=100`, { token: h.ownerToken });
    expect(users.body.Users.map((u: { ID: string }) => u.ID)).toContain(first.sub);
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
    const bob = await idTokenOf(a.flow);
    const alice = await idTokenOf(b.flow);
    expect(bob.sub).not.toBe(alice.sub);
    const [row] = rowsOf<{ name: string; email: string }>(
      await h.t.store.db.execute(sql`SELECT name, email FROM users WHERE id = ${bob.sub}`),
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
    expect((await pageStatus(plain.flow)).status).toBe('verified');
    await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], responseEncryption: ['A128GCM', 'A256GCM'] });
  });

  it('3. compatibility profile: redirect_uri client id, request by value, plain direct_post', async () => {
    expect((await h.configure({ profile: 'compat', trustedIssuerCertificates: [h.pki.root.pem] })).status).toBe(200);
    try {
      const { flow, deepLink, request, answer } = await signIn();
      expect(deepLink).not.toContain('request_uri=');
      expect(request.payload.client_id).toBe(`redirect_uri:${h.issuerOf()}/oid4vp/response`);
      expect(request.payload.response_mode).toBe('direct_post');
      expect(answer.status).toBe(200);
      expect((await pageStatus(flow)).status).toBe('verified');
      expect((await idTokenOf(flow)).email).toBe('alice.wallet@example.test');
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
      const dora = await idTokenOf(a);
      expect(dora).toMatchObject({
        email: 'dora.pid@example.test',
        email_verified: true,
        given_name: 'Dora',
        family_name: 'Pid',
      });
      expect(dora.birthdate).toBeUndefined();
      const [row] = rowsOf<{ name: string }>(
        await h.t.store.db.execute(sql`SELECT name FROM users WHERE id = ${dora.sub}`),
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
      const { flow, answer } = await signIn({ wallet: strict });
      expect(answer.status).toBe(200);
      expect((await pageStatus(flow)).status).toBe('verified');
    } finally {
      await h.configure({ generateVerifierKey: true, trustedIssuerCertificates: [h.pki.root.pem] });
    }
  });

  it('the request object: signed, typed, no-store, served once (docs/wallet.md "The verifier")', async () => {
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
    const atBravo = await signIn({ orgId: bravoId, token, credential: bravoCredential });
    expect(atBravo.answer.status).toBe(200);
    expect(atBravo.answer.body.redirect_uri).toContain(`/oidc/${bravoId}/interaction/`);
    const atAcme = await signIn({ credential: bravoCredential });
    expect(atAcme.answer.status).toBe(400);
    expect((await h.noCode(atAcme.flow)).status).toBe('failed');
    const acmeAtBravo = await signIn({ orgId: bravoId, token });
    expect(acmeAtBravo.answer.status).toBe(400);
    expect((await h.noCode(acmeAtBravo.flow)).status).toBe('failed');
    const bravoClaims = await idTokenOf(atBravo.flow);
    expect(bravoClaims.iss).toBe(h.issuerOf(bravoId));
    expect(bravoClaims.email).toBe('alice.wallet@example.test');
  });
});
