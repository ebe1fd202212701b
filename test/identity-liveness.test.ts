/**
 * The auth guard caches "this session / API key is live" (src/identity/sessions/liveness.ts). These tests
 * revoke credentials behind the server's back, with SQL on another connection as another server
 * process or the CLI would, so that only the database triggers' NOTIFY (migration 0005) can tell the
 * server. Without it the cached answer would stand for a minute and the tests would fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssent, type TestAssent } from './helpers/assent.js';
import { decode } from './helpers/jwt.js';
import { ALICE, BOB, me, meStatus, signIn } from './helpers/session.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

/** Polls `GET /user` until it is 401 or `ms` pass; returns the last status. */
async function statusAfterRevocation(token: string, scheme = 'Bearer', ms = 2000): Promise<number> {
  const until = Date.now() + ms;
  let status = 0;
  while (Date.now() < until) {
    status = (await me(t, token, scheme)).status;
    if (status === 401) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  return status;
}

describe('revocation reaches the cached liveness check of every process (ASVS 5.0 V7.4.1)', () => {
  it('a session revoked by another process is refused within 2 s, while the same user’s other session stays live', async () => {
    const revoked = await signIn(t, ALICE);
    const other = await signIn(t, ALICE);
    for (let i = 0; i < 3; i++) expect(await meStatus(t, revoked.Token.access_token)).toBe(200); // cached "live" now
    expect(await meStatus(t, other.Token.access_token)).toBe(200);
    const sid = decode(revoked.Token.access_token).payload.sid;
    await t.ctx.store.raw('UPDATE token_families SET revoked_at = now(), revoked_reason = $2 WHERE id = $1', [
      sid,
      'test: another process',
    ]);
    expect(await statusAfterRevocation(revoked.Token.access_token)).toBe(401);
    expect(await meStatus(t, other.Token.access_token)).toBe(200);
  });

  it('an API key revoked by another process is refused within 2 s', async () => {
    const { User } = await signIn(t, BOB);
    const apiKey = User.APIKey as string;
    for (let i = 0; i < 3; i++) expect((await me(t, apiKey, 'ApiKey')).status).toBe(200);
    await t.ctx.store.raw('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [decode(apiKey).payload.jti]);
    expect(await statusAfterRevocation(apiKey, 'ApiKey')).toBe(401);
  });

  it('the sessions of an account deleted by another process are refused within 2 s', async () => {
    const { Token, User } = await signIn(t, BOB);
    expect(await meStatus(t, Token.access_token)).toBe(200);
    await t.ctx.store.raw(
      'DELETE FROM refresh_tokens WHERE family_id IN (SELECT id FROM token_families WHERE user_id = $1)',
      [User.ID],
    );
    await t.ctx.store.raw('DELETE FROM token_families WHERE user_id = $1', [User.ID]);
    expect(await statusAfterRevocation(Token.access_token)).toBe(401);
  });
});
