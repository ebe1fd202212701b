/**
 * PostgreSQL's own count of a test server's transactions (`pg_stat_database`), for the batching
 * tests: they check that requests arriving together shared statements and commits, not only that
 * each got the right answer.
 *
 * A backend keeps its counts to itself until it goes idle at least 1 s after its last report (or
 * 10 s later, or at exit), so a plain read lags. `pg_stat_force_next_flush()` (PostgreSQL 15+) makes
 * the backend report when that very statement ends, before it answers; running it on every
 * connection of the server's two pools therefore makes the counts exact, bar work in flight (the
job queue's polls, a few a second, are counted too: assertions leave room for them).
 */
import pg from 'pg';
import { statementHandle } from '../../src/platform/db/open.js';
import type { TestAssent } from './assent.js';

/** The node-postgres pool behind a Drizzle handle. */
const poolOf = (db: unknown) => (db as { $client: pg.Pool }).$client;

/**
 * Reports the pending counts of every connection of the server's two pools.
 * @returns the transactions this took (count): one per connection.
 */
async function flushPools(t: TestAssent): Promise<number> {
  let flushes = 0;
  for (const pool of [poolOf(t.store.db), poolOf(statementHandle(t.store.db))]) {
    // Every connection at once, so that each of them, not one twice, runs the flush.
    const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
    try {
      await Promise.all(clients.map((c) => c.query('SELECT pg_stat_force_next_flush()')));
      flushes += clients.length;
    } finally {
      for (const c of clients) c.release();
    }
  }
  return flushes;
}

/** Transactions committed and rolled back in the server's database, as reported so far (count). */
async function reported(t: TestAssent): Promise<number> {
  // Its own snapshot: with stats_fetch_consistency = cache a snapshot lasts one transaction.
  const { rows } = await poolOf(t.store.db).query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]!.n);
}

/**
 * Starts counting the transactions of a test server's database. PostgreSQL only.
 * @param t - a server started by `startAssent` on PostgreSQL.
 * @returns a reading: the transactions (count) since the previous reading (or the start), the
 *   counter's own statements left out; work still in flight at a reading is counted in a later one.
 */
export async function transactionCounter(t: TestAssent): Promise<() => Promise<number>> {
  await flushPools(t);
  let last = await reported(t);
  return async () => {
    const flushes = await flushPools(t);
    const now = await reported(t);
    // The counter's own: this reading's flushes, and the previous reading's SELECT (reported by them).
    const counted = now - last - flushes - 1;
    last = now;
    return counted;
  };
}

/**
 * Starts `work` while the test holds `table` in ACCESS EXCLUSIVE mode from a connection of its own,
 * and lets go once a statement of the server waits for that lock and `pending()` (the in-process
 * server's count of work its batcher has taken, `Context.pending`) has reached `expected`: every
 * request of `work` is then queued behind the waiting statement, as under load, whatever the speed
 * or the load of the machine. Nothing here depends on timing but `timeoutMs`, a bound for a test
 * that would otherwise hang. PostgreSQL only.
 * @param table - a table the work's statements read or write.
 * @param queued - `pending` (count) and the value it must reach: one per request of `work`.
 * @param timeoutMs - how long to wait for both (milliseconds).
 * @returns what `work` returned (not awaited).
 * @throws when they are not reached within `timeoutMs`, with what was reached (the lock is let go first).
 */
export async function whileTableHeld<T>(
  t: TestAssent,
  table: string,
  work: () => T,
  queued: { pending: () => number; expected: number },
  timeoutMs = 60_000,
): Promise<T> {
  const holder = new pg.Client({ connectionString: t.env.DATABASE_URL });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const started = work();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      // pg_locks, not pg_stat_activity: inside this transaction the latter answers the snapshot of
      // the first poll, and would never show a statement that starts waiting after it.
      const { rows } = await holder.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = $1::regclass',
        [table],
      );
      const waiting = rows[0]!.n;
      if (waiting > 0 && queued.pending() >= queued.expected) break;
      if (Date.now() > deadline)
        throw new Error(
          `within ${timeoutMs} ms: ${waiting} statements waited for the lock on ${table}, ` +
            `${queued.pending()} of ${queued.expected} requests were queued`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
    return started;
  } finally {
    await holder.query('COMMIT').catch(() => {});
    await holder.end();
  }
}
