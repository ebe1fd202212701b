/** SQL of the fixed-window rate limits (table `rate_limits`). */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';

/**
 * Counts one event against `key` in one statement: starts a new window when the current one is
 * older than `windowSeconds`, else adds one. The counter's `expires_at` is set to the window's
 * end (its start plus `windowSeconds`), exactly when the next event would start a new window.
 * @param windowSeconds - window length (seconds).
 * @returns the events in the current window, this one included (count), and when the window began.
 */
export async function hit(
  db: Executor,
  key: string,
  windowSeconds: number,
): Promise<{ count: number; windowStart: Date }> {
  const window = sql`make_interval(secs => ${windowSeconds})`;
  const result = await db.execute(sql`
    INSERT INTO rate_limits (key, window_start, count, expires_at) VALUES (${key}, now(), 1, now() + ${window})
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN rate_limits.window_start <= now() - ${window} THEN 1 ELSE rate_limits.count + 1 END,
      window_start = CASE WHEN rate_limits.window_start <= now() - ${window} THEN now()
        ELSE rate_limits.window_start END,
      expires_at = CASE WHEN rate_limits.window_start <= now() - ${window} THEN now()
        ELSE rate_limits.window_start END + ${window}
    RETURNING count, window_start AS "windowStart"`);
  const row = rowsOf<{ count: number; windowStart: Date | string }>(result)[0]!;
  return { count: row.count, windowStart: new Date(row.windowStart) };
}

/**
 * Deletes the counters whose window has ended (`expires_at`, set by `hit`): such a counter would
 * start a new window at its next event anyway. One statement, a scan of the table.
 * @returns how many counters were deleted (count).
 */
export async function purgeExpired(db: Executor): Promise<number> {
  const result = await db.execute(sql`
    WITH gone AS (DELETE FROM rate_limits WHERE expires_at <= now() RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}
