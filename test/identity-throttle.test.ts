/**
 * Login throttling (ASVS 5.0 V6.3.1). Each test sets up its own state: the throttle table of both
 * servers is emptied before it, and what it needs (failures counted, a delay run out, a lock) is
 * made by attempts or written to `login_throttle` (keys `u:<username>`, `ip:<address>`,
 * src/identity/sessions/throttle.ts), so that any test passes alone or in any order.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let ipServer: TestAssent;
beforeAll(async () => {
  // Low thresholds so the test is quick: accounts delay after 2 failures and lock after 4.
  t = await startAssent({ ASSENT_ACCOUNT_DELAY_AFTER: '2', ASSENT_ACCOUNT_LOCK_AFTER: '4' });
  // A second server whose IP threshold is low and account thresholds high.
  ipServer = await startAssent({
    ASSENT_ACCOUNT_DELAY_AFTER: '100',
    ASSENT_IP_DELAY_AFTER: '4',
    ASSENT_IP_LOCK_AFTER: '50',
  });
});
afterAll(async () => {
  await t?.stop();
  await ipServer?.stop();
});

const attempt = (username: string, password: string, server = t) =>
  call(`${server.base}/v1.1/users/login`, {
    body: { username, password },
    headers: { 'x-forwarded-for': '203.0.113.9' },
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Writes the throttle state of `username` on `t`: `failures` counted, blocked for `blockedSeconds`
 * from now (negative: a block that has run out).
 */
async function throttleState(username: string, failures: number, blockedSeconds: number): Promise<void> {
  await t.store.raw(
    `INSERT INTO login_throttle (key, failures, last_failure_at, blocked_until)
     VALUES ($1, $2, now(), now() + make_interval(secs => $3))
     ON CONFLICT (key) DO UPDATE
     SET failures = EXCLUDED.failures, last_failure_at = EXCLUDED.last_failure_at, blocked_until = EXCLUDED.blocked_until`,
    [`u:${username}`, failures, blockedSeconds],
  );
}

beforeEach(async () => {
  await Promise.all([t.store.raw('DELETE FROM login_throttle'), ipServer.store.raw('DELETE FROM login_throttle')]);
});

describe('brute-force protection (ASVS 5.0 V6.3.1)', () => {
  it('after the delay threshold the next attempt is refused 429 with Retry-After, before the password is checked', async () => {
    expect((await attempt('alice@acme.example', 'wrong-1')).status).toBe(401);
    const second = await attempt('alice@acme.example', 'wrong-2');
    expect(second.status).toBe(401);
    const blocked = await attempt('alice@acme.example', 'alice-passphrase');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(blocked.body).toMatchObject({ Code: 429, error: 'temporarily_unavailable' });
  });

  it('a blocked account answers the right and the wrong password alike, so the block reveals nothing', async () => {
    await throttleState('alice@acme.example', 2, 60); // two failures, blocked longer than the test takes
    const right = await attempt('alice@acme.example', 'alice-passphrase');
    const wrong = await attempt('alice@acme.example', 'wrong-3');
    expect(right.status).toBe(429);
    expect(wrong.status).toBe(429);
    expect(right.body).toEqual(wrong.body);
  });

  it('an unknown username is throttled exactly like an existing one (no account enumeration)', async () => {
    await attempt('ghost@acme.example', 'x-1');
    await attempt('ghost@acme.example', 'x-2');
    const ghost = await attempt('ghost@acme.example', 'x-3');
    expect(ghost.status).toBe(429);
    // Alice blocked for a minute, not the 1 s of two failures, which a slow machine can outlast here.
    await throttleState('alice@acme.example', 2, 60);
    expect(ghost.body).toEqual((await attempt('alice@acme.example', 'x')).body);
  });

  it('the delay grows, then the account locks for the lock period', async () => {
    await throttleState('alice@acme.example', 2, -0.1); // two failures, and their 1 s delay over
    expect((await attempt('alice@acme.example', 'wrong-4')).status).toBe(401); // 3rd failure: 2 s delay
    const delayed = await attempt('alice@acme.example', 'wrong-5');
    expect(delayed.status).toBe(429);
    expect(Number(delayed.headers.get('retry-after'))).toBe(2);
    await sleep(2100);
    expect((await attempt('alice@acme.example', 'wrong-6')).status).toBe(401); // 4th failure: locked
    const locked = await attempt('alice@acme.example', 'alice-passphrase');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
  });

  it('other accounts are not affected by one account’s lock', async () => {
    await throttleState('alice@acme.example', 4, 900); // locked for the lock period
    expect((await attempt('alice@acme.example', 'alice-passphrase')).status).toBe(429);
    expect((await attempt('bob@acme.example', 'bob-passphrase')).status).toBe(200);
  });

  it('a successful login clears the account’s failures', async () => {
    expect((await attempt('bob@acme.example', 'wrong')).status).toBe(401);
    expect((await attempt('bob@acme.example', 'bob-passphrase')).status).toBe(200);
    expect((await attempt('bob@acme.example', 'wrong')).status).toBe(401);
    // Only one failure counts now, below the threshold of two.
    expect((await attempt('bob@acme.example', 'bob-passphrase')).status).toBe(200);
  });

  it('failures from one IP across many usernames block that IP', async () => {
    // X-Forwarded-For is ignored (trustProxy off): a client cannot dodge the IP count by forging it.
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt(`spray-${i}@acme.example`, 'guess', ipServer)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const other = await attempt('bob@acme.example', 'bob-passphrase', ipServer);
    expect(other.status).toBe(429);
  });
});
