/**
 * Parallel refreshes (docs/api.md "Parallel refreshes"; docs/identity.md "Sessions"): within
 * `ASSENT_REFRESH_REUSE_GRACE_SECONDS`, while the successor is unused, a rotated refresh token
 * presented again by the same client answers the same successor tokens; after it, or once the
 * successor was rotated, reuse revokes the whole session (RFC 9700 §4.14.2). With the period at 0
 * (test/identity-refresh.test.ts) every reuse revokes at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { decode } from './helpers/jwt.js';
import {
  ALICE,
  BOB,
  DEFAULT_CLIENT,
  meStatus,
  OTHER_CLIENT,
  refresh,
  signIn,
  type TokenBody,
} from './helpers/session.js';

/**
 * The grace period of this file's server (seconds):
 * long enough for a burst on a busy machine, short enough to wait out.
 */
const GRACE_SECONDS = 3;

let t: TestAssent;
beforeAll(async () => {
  // One write slot: on PostgreSQL the parallel rotations queue and share statements (the group commit).
  // A purge round every second, so that the erasure of lapsed answers can be waited for.
  t = await startAssent({
    ASSENT_REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS),
    ASSENT_DB_WRITE_SLOTS: '1',
    ASSENT_PURGE_SECONDS: '1',
  });
});
afterAll(() => t?.stop());

const rotate = (refreshtoken: string, clientid = DEFAULT_CLIENT) => refresh(t, { refreshtoken, clientid });

/** Asserts that the session of `tokens` is revoked: its access tokens are 401 and its refresh token is refused. */
async function expectRevoked(newest: TokenBody, ...access: string[]) {
  const again = await rotate(newest.refresh_token);
  expect(again.status).toBe(400);
  expect(again.body.error).toBe('invalid_grant');
  for (const token of [newest.access_token, ...access]) expect(await meStatus(t, token)).toBe(401);
}

describe(`refresh-token reuse grace period (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('ten parallel refreshes of one token all answer one and the same successor pair, which then works and rotates once', async () => {
    const { Token } = await signIn(t, BOB);
    const results = await Promise.all(Array.from({ length: 10 }, () => rotate(Token.refresh_token)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const first = results[0]!.body as TokenBody;
    for (const r of results) {
      expect(r.body.refresh_token).toBe(first.refresh_token);
      expect(r.body.access_token).toBe(first.access_token);
    }
    expect(await meStatus(t, first.access_token)).toBe(200);
    expect(await meStatus(t, Token.access_token)).toBe(200);
    const next = await rotate(first.refresh_token);
    expect(next.status).toBe(200);
    expect(await meStatus(t, next.body.access_token)).toBe(200);
  });

  it('the successor is kept sealed, not in clear, and cleared once the successor is rotated', async () => {
    const { Token } = await signIn(t, ALICE);
    const sealed = async () =>
      (
        await t.store.raw(
          'SELECT successor_sealed AS s FROM refresh_tokens WHERE family_id = $1 AND successor_sealed IS NOT NULL',
          [decode(Token.access_token).payload.sid],
        )
      ).rows.map((r: any) => String(r.s));
    const first = await rotate(Token.refresh_token);
    expect(first.status).toBe(200);
    const [stored, ...none] = await sealed();
    expect(none).toEqual([]);
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(first.body.refresh_token.split('.')[1]);
    expect(stored).not.toContain(first.body.access_token.split('.')[1]);
    expect((await rotate(first.body.refresh_token)).status).toBe(200);
    // The first token's sealed answer is gone; only the second rotation's own is kept.
    const after = await sealed();
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(stored);
  });

  it('the sealed answer of an abandoned session is kept only for the period: the purge erases it after', async () => {
    const { Token } = await signIn(t, BOB);
    expect((await rotate(Token.refresh_token)).status).toBe(200);
    const held = async () =>
      (
        await t.store.raw(
          `SELECT count(*)::int AS n FROM refresh_tokens
           WHERE family_id = $1 AND (successor_sealed IS NOT NULL OR grace_until IS NOT NULL)`,
          [decode(Token.access_token).payload.sid],
        )
      ).rows.map((r: any) => Number(r.n))[0];
    expect(await held()).toBe(1);
    // The successor is never used: nothing but the purge can erase the answer.
    await new Promise((r) => setTimeout(r, GRACE_SECONDS * 1000 + 2_500));
    expect(await held()).toBe(0);
  });

  it('a reuse within the period after the successor was rotated still revokes the whole session', async () => {
    const { Token } = await signIn(t, ALICE);
    const first = await rotate(Token.refresh_token);
    const second = await rotate(first.body.refresh_token);
    expect([first.status, second.status]).toEqual([200, 200]);
    const reuse = await rotate(Token.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ Code: 400, error: 'invalid_grant' });
    await expectRevoked(second.body, Token.access_token, first.body.access_token);
  });

  it('a reuse after the period revokes the whole session', async () => {
    const { Token } = await signIn(t, ALICE);
    const first = await rotate(Token.refresh_token);
    expect(first.status).toBe(200);
    await new Promise((r) => setTimeout(r, GRACE_SECONDS * 1000 + 300));
    const reuse = await rotate(Token.refresh_token);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    await expectRevoked(first.body, Token.access_token);
  });

  it('another client presenting the rotated token within the period is refused as before, and gets nothing', async () => {
    const { Token } = await signIn(t, ALICE);
    const first = await rotate(Token.refresh_token);
    expect(first.status).toBe(200);
    const other = await rotate(Token.refresh_token, OTHER_CLIENT);
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_grant');
    expect(JSON.stringify(other.body)).not.toContain(first.body.refresh_token);
    // The session's own client still gets its answer within the period.
    const own = await rotate(Token.refresh_token);
    expect(own.status).toBe(200);
    expect(own.body.refresh_token).toBe(first.body.refresh_token);
  });
});
