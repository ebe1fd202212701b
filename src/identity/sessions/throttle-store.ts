/** SQL of the failed-login counters. */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';

/**
 * Counts one failure for `key`, restarting the count when the previous failure is older than
 * `windowSeconds`, and returns the new count.
 */
export async function recordFailure(db: Executor, key: string, windowSeconds: number): Promise<number> {
  const result = await db.execute(sql`
    INSERT INTO login_throttle (key, failures, last_failure_at) VALUES (${key}, 1, now())
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN login_throttle.last_failure_at < now() - make_interval(secs => ${windowSeconds})
                      THEN 1 ELSE login_throttle.failures + 1 END,
      last_failure_at = now()
    RETURNING failures`);
  return Number(rowsOf<{ failures: number }>(result)[0]?.failures ?? 1);
}

/** Blocks `key` for `seconds` from now. */
export async function block(db: Executor, key: string, seconds: number): Promise<void> {
  await db.execute(
    sql`UPDATE login_throttle SET blocked_until = now() + make_interval(secs => ${seconds}) WHERE key = ${key}`,
  );
}

/** Forgets the failures of `key` (after a successful login). */
export async function reset(db: Executor, key: string): Promise<void> {
  await db.execute(sql`DELETE FROM login_throttle WHERE key = ${key}`);
}

/**
 * The latest end of the blocks in force on `keys`, or null when none is.
 * @param keys - throttle keys, e.g. `u:<username>` and `ip:<address>`.
 */
export async function blockedUntil(db: Executor, keys: string[]): Promise<Date | null> {
  const rows = rowsOf<{ until: string | Date | null }>(
    await db.execute(sql`SELECT max(blocked_until) AS until FROM login_throttle
      WHERE key IN (${sql.join(
        keys.map((k) => sql`${k}`),
        sql`, `,
      )}) AND blocked_until > now()`),
  );
  return rows[0]?.until ? new Date(rows[0].until) : null;
}

/**
 * Deletes the counters that no longer matter: the last failure is older than `windowSeconds`, so
 * the next failure would count from 1 anyway (`recordFailure`), and no block is in force. Without
 * it, every unknown username tried would leave a row for ever.
 * @param windowSeconds - the longest failure window of the policies (seconds).
 * @returns how many counters were deleted (count).
 */
export async function purgeStale(db: Executor, windowSeconds: number): Promise<number> {
  const result = await db.execute(sql`
    WITH gone AS (
      DELETE FROM login_throttle
      WHERE last_failure_at < now() - make_interval(secs => ${windowSeconds})
        AND (blocked_until IS NULL OR blocked_until <= now())
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}
