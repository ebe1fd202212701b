/**
 * The purge of stale anti-automation counters (src/app/purge.ts): a login with a made-up username
 * and a password-reset request each leave a row; once their window has passed the purge deletes
 * them, so a flood of made-up names cannot grow the tables for ever (ASVS 5.0 V2.4.1). A counter
 * that still decides something (inside its window, or blocking) is kept.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
beforeAll(async () => {
  // Windows of 2 s and a purge every second.
  t = await startAssent({ ASSENT_PURGE_SECONDS: '1', ASSENT_LOCK_SECONDS: '2', ASSENT_FORGOT_WINDOW_SECONDS: '2' });
});
afterAll(() => t?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = async (table: 'login_throttle' | 'rate_limits', key: string) =>
  rowsOf<{ n: number }>(
    await t.store.db.execute(sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE key = ${key}`),
  )[0]!.n;
const failLogin = (username: string) =>
  call(`${t.base}/v1.1/users/login`, { body: { username, password: 'not-the-password' } });

/** Polls `check` every 250 ms for at most `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(250)) if (await check()) return true;
  return check();
}

describe('ASVS 5.0 V2.4.1: stale throttle counters are purged, live ones kept', () => {
  it('a made-up username’s failure counter is kept inside its window and deleted after it', async () => {
    const name = `ghost-${randomUUID()}@acme.example`;
    expect((await failLogin(name)).status).toBe(401);
    expect(await count('login_throttle', `u:${name}`)).toBe(1);
    await sleep(1200); // a purge round ran, but the window (2 s) has not passed
    expect(await count('login_throttle', `u:${name}`)).toBe(1);
    expect(await eventually(async () => (await count('login_throttle', `u:${name}`)) === 0, 5000)).toBe(true);
  });

  it('a password-reset window of a made-up username is deleted once it has ended', async () => {
    const name = `ghost-${randomUUID()}@acme.example`;
    expect((await call(`${t.base}/user/password/forgot`, { method: 'PUT', body: { username: name } })).status).toBe(
      200,
    );
    expect(await count('rate_limits', `forgot:u:${name}`)).toBe(1);
    expect(await eventually(async () => (await count('rate_limits', `forgot:u:${name}`)) === 0, 5000)).toBe(true);
  });

  it('a counter whose block is still in force outlives its window, and goes once the block ends', async () => {
    const name = `ghost-${randomUUID()}@acme.example`;
    // A lock as the throttle writes one (src/identity/sessions/throttle-store.ts), its last failure long past the
    // 2 s window: only the block keeps it. Written in SQL, since a real lock lasts ASSENT_LOCK_SECONDS = the window.
    await t.store.db.execute(sql`INSERT INTO login_throttle (key, failures, last_failure_at, blocked_until)
      VALUES (${`u:${name}`}, 100, now() - interval '1 hour', now() + interval '3 seconds')`);
    expect((await failLogin(name)).status).toBe(429); // the block is in force
    await sleep(2000); // purge rounds ran
    expect(await count('login_throttle', `u:${name}`)).toBe(1);
    expect(await eventually(async () => (await count('login_throttle', `u:${name}`)) === 0, 5000)).toBe(true);
  });
});
