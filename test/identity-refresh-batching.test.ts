import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { decode } from './helpers/jwt.js';
import { whileTableHeld } from './helpers/pg-stats.js';
import { ALICE, BOB, DEFAULT_CLIENT, refresh, signIn } from './helpers/session.js';

let t: TestAssent;
// One write slot, so that on PostgreSQL the parallel rotations below wait for it and share
// statements (src/identity/sessions/store.ts rotateRefreshMany); the test holds refresh_tokens until the
// first rotation waits for it and the server has taken all 24, so that the others queue behind it
// however fast or loaded the machine is, and
// counts the transactions that wrote the successors. PGlite runs each statement to its end before
// the next request is read, so there every rotation runs alone, by design (one slot), and the test
// checks that path.
beforeAll(async () => {
  t = await startAssent({ ASSENT_DB_WRITE_SLOTS: '1' });
});
afterAll(() => t?.stop());

const sidOf = (token: string) => decode(token).payload.sid as string;

describe(`refresh-token rotations that share one statement each rotate their own token (RFC 9700 §4.14.2; ${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('24 sessions rotated in parallel, each twice and once more with a reused token: every rotation continues its own session, every reuse revokes only its own', async () => {
    const sessions: Awaited<ReturnType<typeof signIn>>['Token'][] = [];
    for (let i = 0; i < 24; i++) sessions.push((await signIn(t, i % 2 ? ALICE : BOB)).Token);
    const sids = sessions.map((s) => sidOf(s.access_token));
    expect(new Set(sids).size).toBe(24);

    const rotateAll = (tokens: string[]) =>
      Promise.all(tokens.map((refreshtoken) => refresh(t, { refreshtoken, clientid: DEFAULT_CLIENT })));
    const rotateFirst = () => rotateAll(sessions.map((s) => s.refresh_token));
    const first = await (onPostgres
      ? whileTableHeld(t, 'refresh_tokens', rotateFirst, {
          pending: () => t.ctx.pending.refreshRotations(),
          expected: sessions.length,
        })
      : rotateFirst());
    expect(first.map((r) => r.status)).toEqual(Array(24).fill(200));
    // The successors (the only rows with a predecessor so far) were written by fewer transactions
    // than rotations on PostgreSQL: one transaction per rotation would be 24.
    const [written] = (
      await t.store.raw(
        `SELECT count(*)::int AS n, count(DISTINCT xmin::text)::int AS transactions
         FROM refresh_tokens WHERE predecessor_hash IS NOT NULL`,
      )
    ).rows as { n: number; transactions: number }[];
    expect(written!.n).toBe(24);
    if (onPostgres) expect(written!.transactions).toBeLessThanOrEqual(24 / 2);
    else expect(written!.transactions).toBe(24);
    // A rotation answered with another row of its statement would mint an access token of another session.
    expect(first.map((r) => sidOf(r.body.access_token))).toEqual(sids);
    expect(first.map((r) => sidOf(r.body.refresh_token))).toEqual(sids);

    // Each successor was stored in its own family: it rotates, and still in its own session.
    const second = await rotateAll(first.map((r) => r.body.refresh_token));
    expect(second.map((r) => r.status)).toEqual(Array(24).fill(200));
    expect(second.map((r) => sidOf(r.body.access_token))).toEqual(sids);

    // The even sessions present their consumed first token again, beside the odd ones' current tokens:
    // reuse is refused and revokes its own session only.
    const third = await rotateAll(
      sessions.map((s, i) => (i % 2 === 0 ? s.refresh_token : second[i]!.body.refresh_token)),
    );
    expect(third.map((r) => r.status)).toEqual(sessions.map((_, i) => (i % 2 === 0 ? 400 : 200)));
    const after = await rotateAll(
      sessions.map((_, i) => (i % 2 === 0 ? second[i]!.body.refresh_token : third[i]!.body.refresh_token)),
    );
    expect(after.map((r) => r.status)).toEqual(sessions.map((_, i) => (i % 2 === 0 ? 400 : 200)));
  });
});
