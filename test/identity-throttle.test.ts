import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let ipServer: TestAssent;
beforeAll(async () => {
  // Low thresholds so the test is quick: accounts delay after 2 failures and lock after 4.
  t = await startAssent({ ASSENT_ACCOUNT_DELAY_AFTER: '2', ASSENT_ACCOUNT_LOCK_AFTER: '4' });
  // A second server whose IP threshold is low and account thresholds high.
  ipServer = await startAssent({ ASSENT_ACCOUNT_DELAY_AFTER: '100', ASSENT_IP_DELAY_AFTER: '4', ASSENT_IP_LOCK_AFTER: '50' });
});
afterAll(async () => {
  await t?.stop();
  await ipServer?.stop();
});

const attempt = (username: string, password: string, server = t) =>
  call(`${server.base}/v1.1/users/login`, { body: { username, password }, headers: { 'x-forwarded-for': '203.0.113.9' } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
    expect(ghost.body).toEqual((await attempt('alice@acme.example', 'x')).body);
  });

  it('the delay grows, then the account locks for the lock period', async () => {
    await sleep(1100); // first delay (1 s) over
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
