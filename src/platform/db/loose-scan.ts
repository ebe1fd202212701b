/**
 * The distinct values of an index's leading column, one index probe per value found (a "loose index scan", which
 * PostgreSQL does not plan by itself: PostgreSQL wiki, "Loose indexscan"). For the sweeps that ask which
 * organisations have rows in a queue-like index: `SELECT DISTINCT` may be planned as a scan of every row version the
 * queue's churn left behind, whatever the index.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from './open.js';

/** Where to look: a table, an index's two leading columns, and the index's predicate. */
export interface LooseScan {
  /** The table (a constant of the code, never input). */
  table: string;
  /** The index's leading column, whose distinct values are answered. */
  key: string;
  /** Its second column, so that the probes' order is the index's. */
  next: string;
  /** The partial index's predicate, over the table's unqualified columns; absent for a whole index. */
  where?: SQL;
}

/**
 * The distinct values of `scan.key` among the rows matching `scan.where`, ascending, as text.
 * @throws the database's error.
 */
export async function distinctLeading(db: Executor, scan: LooseScan): Promise<string[]> {
  const [table, key, next] = [sql.identifier(scan.table), sql.identifier(scan.key), sql.identifier(scan.next)];
  const where = scan.where ?? sql`true`;
  const result = await db.execute(sql`WITH RECURSIVE found AS (
      (SELECT ${key} AS k FROM ${table} WHERE ${where} ORDER BY ${key}, ${next} LIMIT 1)
      UNION ALL
      SELECT (SELECT t.${key} FROM ${table} t WHERE ${where} AND t.${key} > found.k ORDER BY t.${key}, t.${next} LIMIT 1)
      FROM found WHERE found.k IS NOT NULL
    )
    SELECT k FROM found WHERE k IS NOT NULL`);
  return rowsOf<{ k: string }>(result).map((r) => r.k);
}
