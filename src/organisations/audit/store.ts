/** SQL of the organisation audit log (`org_audit_log`). */
import { and, desc, eq, lt } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../platform/db/open.js';
import { orgAuditLog } from '../../platform/db/schema/federation.js';

/** A stored entry. */
export type AuditRow = typeof orgAuditLog.$inferSelect;

/** Inserts one entry (its ID a UUIDv7, so IDs sort by time; `at` is the database's now). */
export async function insertEntry(db: Executor, entry: Omit<AuditRow, 'id' | 'at'>): Promise<void> {
  await db.insert(orgAuditLog).values({ id: uuidv7(), ...entry });
}

/** Narrows a page of entries: each given field must match exactly. */
export interface AuditFilter {
  /** e.g. `idp.update`. */
  action?: string;
  /** The acting user's ID. */
  actorUserId?: string;
}

/**
 * Entries of an organisation, newest first, keyset-paged by ID.
 * @param beforeId - exclusive: the entries older than this one; undefined for the newest.
 * @param limit - the page size; one row more is read, to tell whether another page exists.
 * @param filter - only the entries with this action and/or actor.
 */
export async function entriesBefore(
  db: Executor,
  orgId: string,
  beforeId: string | undefined,
  limit: number,
  filter: AuditFilter = {},
): Promise<AuditRow[]> {
  const where = and(
    eq(orgAuditLog.orgId, orgId),
    beforeId ? lt(orgAuditLog.id, beforeId) : undefined,
    filter.action !== undefined ? eq(orgAuditLog.action, filter.action) : undefined,
    filter.actorUserId !== undefined ? eq(orgAuditLog.actorUserId, filter.actorUserId) : undefined,
  );
  return db
    .select()
    .from(orgAuditLog)
    .where(where)
    .orderBy(desc(orgAuditLog.id))
    .limit(limit + 1);
}
