/**
 * The OpenID providers' state in Assent's database (docs/decisions/0017-wallet-sign-in-provider.md
 * "Adapter"): each organisation's rows are its own, an expired row is never used, and the purge
 * (src/app/purge.ts) deletes expired rows.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { startAssent, type TestAssent } from './helpers/assent.js';
import {
  authParams,
  Browser,
  fetchWithJar,
  openWalletPage,
  type ProviderWorld,
  providerWorld,
} from './helpers/provider.js';

let s: TestAssent;
let w: ProviderWorld;

beforeAll(async () => {
  s = await startAssent({ ASSENT_PURGE_SECONDS: '1' });
  w = await providerWorld(s);
});
afterAll(() => s?.stop());

const rows = async (orgId: string, model: string, id: string) =>
  rowsOf<{ n: number }>(
    await s.store.db.execute(
      sql`SELECT count(*)::int AS n FROM oidc_provider_records WHERE org_id = ${orgId} AND model = ${model} AND id = ${id}`,
    ),
  )[0]!.n;

describe('the providers keep their state in the database, with expiry', () => {
  it("an interaction is a row of its organisation, with the library's payload and an expiry about 10 minutes ahead", async () => {
    const { uid } = await openWalletPage(new Browser(), w.acme, authParams());
    const [row] = rowsOf<{ org_id: string; seconds: number; payload: { uid?: string; jti?: string } }>(
      await s.store.db.execute(
        sql`SELECT org_id, extract(epoch FROM expires_at - now())::int AS seconds, payload
            FROM oidc_provider_records WHERE model = 'Interaction' AND id = ${uid}`,
      ),
    );
    expect(row!.org_id).toBe(w.acme.id);
    expect(row!.seconds).toBeGreaterThan(590);
    expect(row!.seconds).toBeLessThanOrEqual(600);
    expect(await rows(w.beta.id, 'Interaction', uid)).toBe(0);
  });

  it('an expired interaction is never used (its cookie no longer opens the page), and the purge deletes it', async () => {
    const browser = new Browser();
    const { uid, pageUrl } = await openWalletPage(browser, w.acme, authParams());
    await s.store.db.execute(
      sql`UPDATE oidc_provider_records SET expires_at = now() - interval '1 second' WHERE model = 'Interaction' AND id = ${uid}`,
    );
    const res = await fetchWithJar(browser, pageUrl);
    expect(res.status).toBe(400);
    let left = 1;
    for (let i = 0; i < 50 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await rows(w.acme.id, 'Interaction', uid);
    }
    expect(left).toBe(0);
  });

  it('a live row survives the purge', async () => {
    const { uid } = await openWalletPage(new Browser(), w.acme, authParams());
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await rows(w.acme.id, 'Interaction', uid)).toBe(1);
  });
});
