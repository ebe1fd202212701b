/**
 * Transactions that need not wait for the disk (PostgreSQL 15 documentation §30.4 "Asynchronous Commit";
 * docs/decisions/0032-event-webhooks.md, amendment "asynchronous commit").
 */
import { sql } from 'drizzle-orm';
import type { Executor } from './open.js';

/**
 * Lets the caller's transaction commit without waiting for its write-ahead log to reach the disk (`SET LOCAL
 * synchronous_commit = off`): the commit returns at once and the WAL writer flushes it within its delay (200 ms by
 * default), sharing one flush with other commits. A crash of the database server may lose such a transaction whole,
 * never half of it, and any later ordinary commit makes it durable with itself. Only for bookkeeping whose loss is
 * redone (a delivery sent again, a lease taken again), never for evidence, consent or anything a reader may already
 * have relied on.
 * @param tx - a transaction (outside one, the setting would not hold).
 * @throws the database's error.
 */
export async function commitWithoutWaitingForDisk(tx: Executor): Promise<void> {
  await tx.execute(sql`SET LOCAL synchronous_commit = off`);
}
