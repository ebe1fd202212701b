/** SQL of the failed-login counters. */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';

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

/** The end of the block in force on `key`, or null when none is. */
export async function blockedUntil(db: Executor, key: string): Promise<Date | null> {
  const rows = rowsOf<{ blocked_until: string | Date | null }>(
    await db.execute(sql`SELECT blocked_until FROM login_throttle WHERE key = ${key} AND blocked_until > now()`),
  );
  return rows[0]?.blocked_until ? new Date(rows[0].blocked_until) : null;
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
      WHERE last_failure_at < now() - make_interval(secs => ${windowSeconds}) AND (blocked_until IS NULL OR blocked_until <= now())
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}
