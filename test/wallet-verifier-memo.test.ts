/**
 * What the verifier remembers between presentations (docs/wallet.md "Verification steps", step 6):
 * an issuer's x5c chain and a status-list token are verified once per set of trust anchors and
 * reused, so each must be refused again as soon as the organisation's anchors no longer cover it;
 * and a first sign-in of one credential, twice at once, makes one individual, with the wallet
 * transaction's result committed with it.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call } from './helpers/assent.js';
import { issue } from './helpers/wallet/issuer.js';
import { startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';

let h: WalletHarness;

beforeAll(async () => {
  h = await startWalletHarness();
}, 60_000);
afterAll(async () => h?.stop());

/** Starts a transaction and presents `credential` to it. */
async function present(credential: string) {
  const { uid, deepLink } = await h.start();
  const request = await h.wallet.resolve(deepLink);
  return { uid, answer: await h.wallet.present(request, credential) };
}

const trust = (...pems: string[]) => h.configure({ trustedIssuerCertificates: pems });

describe('remembered verifications (docs/wallet.md "Verification steps")', () => {
  it('a chain verified before is refused once the organisation no longer trusts its root', async () => {
    const credential = await h.credential();
    expect((await present(credential)).answer.status).toBe(200);
    try {
      expect((await trust(h.pki.root2.pem)).status).toBe(200);
      const { uid, answer } = await present(credential);
      expect(answer.status).toBe(400);
      expect(answer.body.error_description).toMatch(/issuer certificate chain/);
      expect(await h.t.ctx.wallet.outcome(h.orgId, uid)).toEqual({ status: 'failed', error: 'invalid_presentation' });
    } finally {
      await trust(h.pki.root.pem);
    }
    expect((await present(credential)).answer.status).toBe(200);
  });

  it('a status list verified under other anchors is verified again, though its token is kept (ttl)', async () => {
    // A credential of the second issuer whose status list is signed under the first root.
    const uri = h.status.list('memo', h.pki.statusSigner);
    h.status.tamper('memo', { ttl: 120 });
    const credential = await issue({
      holder: h.wallet.holder,
      signer: h.pki.issuer2,
      iss: 'https://issuer2.test',
      status: { idx: 1, uri },
    });
    try {
      expect((await trust(h.pki.root.pem, h.pki.root2.pem)).status).toBe(200);
      expect((await present(credential)).answer.status).toBe(200);
      expect(h.status.fetches.get('memo')).toBe(1);
      // The token is still kept, but the list's signer is no longer trusted.
      expect((await trust(h.pki.root2.pem)).status).toBe(200);
      const { answer } = await present(credential);
      expect(answer.status).toBe(400);
      expect(answer.body.error_description).toMatch(/status list/);
      expect(h.status.fetches.get('memo')).toBe(1);
    } finally {
      await trust(h.pki.root.pem);
    }
  });

  it('a new verifier key is used at once: the next request names it and is signed by it', async () => {
    const before = await h.wallet.resolve((await h.start()).deepLink);
    expect((await h.configure({ generateVerifierKey: true, trustedIssuerCertificates: [h.pki.root.pem] })).status).toBe(
      200,
    );
    const settings = await call(`${h.t.base}/organizations/${h.orgId}/wallet`, { token: h.ownerToken });
    // resolve() checks the request object's signature by its x5c leaf and the leaf's x509_hash.
    const after = await h.wallet.resolve((await h.start()).deepLink);
    expect(after.payload.client_id).toBe(settings.body.verifierClientId);
    expect(after.payload.client_id).not.toBe(before.payload.client_id);
  });

  it("a returning credential signs in the same individual and keeps this sign-in's claims for the ID token", async () => {
    const mapping = { email: ['email_address'], given_name: ['given_name'] };
    expect((await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], claimMapping: mapping })).status).toBe(
      200,
    );
    try {
      const email = 'returning@example.test';
      const first = await present(await h.credential({ claims: { email_address: email, given_name: 'Ann' } }));
      const second = await present(await h.credential({ claims: { email_address: email, given_name: 'Anna' } }));
      const a = await h.t.ctx.wallet.complete(h.orgId, first.uid);
      const b = await h.t.ctx.wallet.complete(h.orgId, second.uid);
      expect(b.accountId).toBe(a.accountId);
      expect(await h.t.ctx.wallet.claimsOf(h.orgId, b.accountId)).toEqual({
        email,
        email_verified: true,
        given_name: 'Anna',
      });
    } finally {
      await trust(h.pki.root.pem);
    }
  });

  it('two first sign-ins of one credential at once make one individual, each result with its own transaction', async () => {
    const credential = await h.credential({ claims: { email_address: 'twice.at.once@example.test' } });
    const [a, b] = await Promise.all([present(credential), present(credential)]);
    expect([a.answer.status, b.answer.status]).toEqual([200, 200]);
    const [la, lb] = [await h.t.ctx.wallet.complete(h.orgId, a.uid), await h.t.ctx.wallet.complete(h.orgId, b.uid)];
    expect(la.accountId).toBe(lb.accountId);
    const links = rowsOf<{ n: number }>(
      await h.t.store.db.execute(sql`SELECT count(*)::int AS n FROM wallet_identities WHERE user_id = ${la.accountId}`),
    );
    expect(links[0]!.n).toBe(1);
  });
});
