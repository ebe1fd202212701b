/**
 * The verifier's status lists, completion rules and the lifecycle of its transactions and accounts
 * (docs/api.md "Authorization endpoint"; docs/wallet.md "The verifier", "Verification steps", "The sign-in page";
 * HAIP 1.0 §5.1; docs/decisions/0018-wallet-verifier.md), driven over HTTP: a relying party's
 * `/auth` in a cookie-keeping user agent, the wallet page's deep link handed to the test wallet,
 * the page's status endpoint and its completion.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { Browser } from './helpers/oidc.js';
import { fetchWithJar } from './helpers/provider.js';
import { finishSignIn, pageStatus, refreshSignIn, tryFinish } from './helpers/wallet/flow.js';
import { holderKey, issue } from './helpers/wallet/issuer.js';
import { responseCodeOf, startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';
import { TestWallet } from './helpers/wallet/wallet.js';

let h: WalletHarness;

beforeAll(async () => {
  h = await startWalletHarness();
}, 60_000);
afterAll(async () => h?.stop());

/** One sign-in up to the wallet's answer. */
async function signIn(opts: { credential?: string; wallet?: TestWallet } = {}) {
  const flow = await h.start();
  const wallet = opts.wallet ?? h.wallet;
  const answer = await wallet.present(await wallet.resolve(flow.deepLink), opts.credential ?? (await h.credential()));
  return { flow, answer };
}

describe('status lists (docs/wallet.md "Verification steps"; draft-ietf-oauth-status-list)', () => {
  it('a credential with a status list entry that is valid is accepted', async () => {
    const uri = h.status.list('good', h.pki.statusSigner);
    const { flow, answer } = await signIn({ credential: await h.credential({ status: { idx: 3, uri } }) });
    expect(answer.status).toBe(200);
    expect((await pageStatus(flow)).status).toBe('verified');
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
});

describe('completion rules', () => {
  it('sameDeviceOnly: completion needs the response_code; the status names no completion and polling completion is refused (HAIP 1.0 §5.1)', async () => {
    expect((await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], sameDeviceOnly: true })).status).toBe(200);
    try {
      const { flow, answer } = await signIn();
      expect(answer.status).toBe(200);
      // The page must not be sent to a completion that cannot succeed: it waits for the wallet's redirect.
      expect(await pageStatus(flow)).toEqual({ status: 'verified' });
      const polled = await tryFinish(flow);
      expect(polled.rp?.searchParams.get('code') ?? null).toBeNull();
      // The wallet's redirect opened in another browser cannot go on, there or on the first device:
      // its page says to start again, not "continue on your other device".
      const returnUrl = `${flow.issuer}/interaction/${flow.uid}/wallet-return?response_code=${responseCodeOf(answer.body)}`;
      const elsewhere = await fetchWithJar(new Browser(), returnUrl);
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.location).toBeNull();
      expect(elsewhere.body).toContain('Start again in this browser');
      expect(elsewhere.body).not.toContain('other device');
      const rp = await finishSignIn(flow, responseCodeOf(answer.body));
      expect(rp.searchParams.get('code')).toBeTruthy();
      expect(rp.searchParams.get('state')).toBe(flow.state);
    } finally {
      await h.configure({ trustedIssuerCertificates: [h.pki.root.pem] });
    }
  });

  it('two responses at once to one transaction: exactly one is accepted (single use)', async () => {
    const flow = await h.start();
    const request = await h.wallet.resolve(flow.deepLink);
    const credential = await h.credential();
    const answers = await Promise.all([h.wallet.present(request, credential), h.wallet.present(request, credential)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect((await pageStatus(flow)).status).toBe('verified');
    expect((await finishSignIn(flow)).searchParams.get('code')).toBeTruthy();
  });

  it('a new code for the interaction replaces the old transaction; the page sees the new one', async () => {
    const first = await h.start();
    const oldRequest = await h.wallet.resolve(first.deepLink);
    const next = await refreshSignIn(first);
    expect(next.deepLink).not.toBe(first.deepLink);
    expect((await pageStatus(next)).status).toBe('pending');
    // The old code's request was fetched before the refresh; its response now reaches no transaction.
    expect((await h.wallet.present(oldRequest, await h.credential())).status).toBe(400);
    expect((await pageStatus(next)).status).toBe('pending');
    const request = await h.wallet.resolve(next.deepLink);
    expect((await h.wallet.present(request, await h.credential())).status).toBe(200);
    expect((await pageStatus(next)).status).toBe('verified');
  });
});

describe('account lifecycle', () => {
  it('account deletion erases the credential link and its claims; the next sign-in is a new individual', async () => {
    const other = new TestWallet(await holderKey());
    const credential = await issue({
      holder: other.holder,
      signer: h.pki.issuer,
      claims: { email_address: 'carol.wallet@example.test' },
    });
    const a = await signIn({ wallet: other, credential });
    const carol = (await h.redeem(await finishSignIn(a.flow))).sub as string;
    await h.t.ctx.accounts.delete(carol);
    const left = rowsOf(await h.t.store.db.execute(sql`SELECT 1 FROM wallet_identities WHERE user_id = ${carol}`));
    expect(left).toHaveLength(0);
    expect(await h.t.ctx.wallet.claimsOf(h.orgId, carol)).toEqual({});
    const b = await signIn({ wallet: other, credential });
    expect((await h.redeem(await finishSignIn(b.flow))).sub).not.toBe(carol);
  });

  it('ended transactions are purged after their grace period; the page then reads expired', async () => {
    const flow = await h.start();
    await h.t.store.db.execute(
      sql`UPDATE wallet_transactions SET expires_at = now() - interval '11 minutes' WHERE interaction_uid = ${flow.uid}`,
    );
    const { purgeWalletTransactions } = await import('../src/provider/wallet/flow.js');
    expect(await purgeWalletTransactions(h.t.store.db)).toBeGreaterThanOrEqual(1);
    expect((await pageStatus(flow)).status).toBe('expired');
    expect((await h.noCode(flow)).status).toBe('expired');
  });
});
