/** SQL of the fixed-window rate limits (table `rate_limits`). */
import { sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';

/**
 * Counts one event against `key` in one statement: starts a new window when the current one is
 * older than `windowSeconds`, else adds one.
 * @param windowSeconds - window length (seconds).
 * @returns the events in the current window, this one included (count), and when the window began.
 */
export async function hit(db: Executor, key: string, windowSeconds: number): Promise<{ count: number; windowStart: Date }> {
  const result = await db.execute(sql`
    INSERT INTO rate_limits (key, window_start, count) VALUES (${key}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      count = CASE WHEN rate_limits.window_start <= now() - make_interval(secs => ${windowSeconds}) THEN 1 ELSE rate_limits.count + 1 END,
      window_start = CASE WHEN rate_limits.window_start <= now() - make_interval(secs => ${windowSeconds}) THEN now() ELSE rate_limits.window_start END
    RETURNING count, window_start AS "windowStart"`);
  const row = rowsOf<{ count: number; windowStart: Date | string }>(result)[0]!;
  return { count: row.count, windowStart: new Date(row.windowStart) };
}

/** A family of rate-limit keys (`forgot:`, `anon:` …) and the window of its limit (seconds). */
export interface KeyWindow {
  prefix: string;
  windowSeconds: number;
}

/**
 * Deletes the keys whose window has ended: such a key would start a new window at its next event
 * anyway (`hit`). A key of no listed family is kept.
 * @param families - every limit's key prefix and window.
 * @returns how many keys were deleted (count).
 */
export async function purgeStale(db: Executor, families: KeyWindow[]): Promise<number> {
  if (families.length === 0) return 0;
  const windows = sql.join(families.map((f) => sql`(${f.prefix}, ${f.windowSeconds}::int)`), sql`, `);
  const result = await db.execute(sql`
    WITH gone AS (
      DELETE FROM rate_limits r USING (VALUES ${windows}) AS w(prefix, seconds)
      WHERE starts_with(r.key, w.prefix) AND r.window_start <= now() - make_interval(secs => w.seconds)
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  return rowsOf<{ n: number }>(result)[0]?.n ?? 0;
}
