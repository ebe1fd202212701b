/**
 * Transactions that need not wait for the disk (PostgreSQL 15 documentation §30.4 "Asynchronous Commit";
 * docs/decisions/0032-event-webhooks.md, amendment "asynchronous commit").
 */
import { sql } from 'drizzle-orm';
import type { Db, Executor } from './open.js';

/**
 * Runs `work` in a transaction that commits without waiting for its write-ahead log to reach the disk (`SET LOCAL
 * synchronous_commit = off`): the commit returns at once and the WAL writer flushes it within its delay (200 ms by
 * default), sharing one flush with other commits. A crash of the database server may lose such a transaction whole,
 * never half of it, and any later ordinary commit makes it durable with itself. Only for bookkeeping whose loss is
 * redone (a delivery sent again, a lease taken again), never for evidence, consent or anything a reader may already
 * have relied on.
 * @returns what `work` returns.
 * @throws what `work` or the database throws (the transaction is rolled back).
 */
export function transactionNotWaitingForDisk<T>(db: Db, work: (tx: Executor) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL synchronous_commit = off`);
    return work(tx);
  });
}
