/**
 * A web session's row is kept in the liveness cache (src/identity/sessions/liveness.ts), so that a page view
 * costs no statement. These tests end sessions behind the server's back, with SQL on another
 * connection as another server process, the purge or the CLI would, so that only the database
 * triggers' NOTIFY (migrations 0005 and 0023) can tell the server; without them the kept row would
 * stand for a minute and the tests would fail. Also the idle timeout and the absolute end, which the
 * server checks on the row it keeps (docs/web.md "Sessions", ASVS 5.0 V7.3).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssent, type TestAssent } from './helpers/assent.js';
import { ALICE, BOB } from './helpers/session.js';
import { type WebClient, webSignIn } from './helpers/web-client.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

/** The stored key of a client's session: SHA-256 of the cookie's value. */
const idHash = (client: WebClient) => createHash('sha256').update(client.cookie.split('=')[1]!).digest();

/** Polls the consents page until it sends the browser to sign in (303) or `ms` pass; the last status. */
async function statusAfterEnd(client: WebClient, ms = 2000): Promise<number> {
  const until = Date.now() + ms;
  let status = 0;
  while (Date.now() < until) {
    status = (await client.get('/dashboard/consents')).status;
    if (status === 303) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  return status;
}

/** Signs in and views the page a few times, so that the session's row is kept. */
async function keptSession(user: { username: string; password: string }): Promise<WebClient> {
  const client = await webSignIn(t, user);
  for (let i = 0; i < 3; i++) expect((await client.get('/dashboard/consents')).status).toBe(200);
  return client;
}

describe('a web session ended elsewhere stops working in every process (ASVS 5.0 V7.4.1)', () => {
  it('a web session signed out by another process (its row deleted) is refused within 2 s, while the same user’s other session stays', async () => {
    const ended = await keptSession(ALICE);
    const other = await keptSession(ALICE);
    await t.ctx.store.raw('DELETE FROM web_sessions WHERE id_hash = $1', [idHash(ended)]);
    expect(await statusAfterEnd(ended)).toBe(303);
    expect((await other.get('/dashboard/consents')).status).toBe(200);
  });

  it('a web session whose token family another process revoked is refused within 2 s', async () => {
    const client = await keptSession(BOB);
    await t.ctx.store.raw(
      `UPDATE token_families SET revoked_at = now(), revoked_reason = 'test: another process'
       WHERE id = (SELECT family_id FROM web_sessions WHERE id_hash = $1)`,
      [idHash(client)],
    );
    expect(await statusAfterEnd(client)).toBe(303);
  });
});

describe('web session timeouts', () => {
  it('idle timeout: a session without a request for more than 30 minutes ends, and its row is deleted', async () => {
    const client = await webSignIn(t, ALICE);
    await t.ctx.store.raw(`UPDATE web_sessions SET last_seen_at = now() - interval '31 minutes' WHERE id_hash = $1`, [
      idHash(client),
    ]);
    expect((await client.get('/dashboard/consents')).status).toBe(303);
    const { rows } = await t.ctx.store.raw('SELECT 1 FROM web_sessions WHERE id_hash = $1', [idHash(client)]);
    expect(rows).toHaveLength(0);
  });

  it('absolute timeout: a session past its end is refused', async () => {
    const client = await webSignIn(t, BOB);
    await t.ctx.store.raw(`UPDATE web_sessions SET expires_at = now() - interval '1 second' WHERE id_hash = $1`, [
      idHash(client),
    ]);
    expect((await client.get('/dashboard/consents')).status).toBe(303);
  });

  it('activity is recorded when the last was more than a minute ago, and not at every view', async () => {
    const client = await webSignIn(t, ALICE);
    const lastSeen = async () => {
      const { rows } = await t.ctx.store.raw('SELECT last_seen_at FROM web_sessions WHERE id_hash = $1', [
        idHash(client),
      ]);
      return new Date((rows[0] as { last_seen_at: string | Date }).last_seen_at).getTime();
    };
    await t.ctx.store.raw(`UPDATE web_sessions SET last_seen_at = now() - interval '2 minutes' WHERE id_hash = $1`, [
      idHash(client),
    ]);
    expect((await client.get('/dashboard/consents')).status).toBe(200);
    const touched = await lastSeen();
    expect(Date.now() - touched).toBeLessThan(30_000);
    for (let i = 0; i < 3; i++) expect((await client.get('/dashboard/consents')).status).toBe(200);
    expect(await lastSeen()).toBe(touched);
  });
});
