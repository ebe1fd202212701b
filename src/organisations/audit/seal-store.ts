/**
 * SQL of sealing the audit log: chaining an organisation's unsealed entries after its head
 * (docs/decisions/0033-audit-log-chain.md; sealer.ts runs it), and reading the chain back for verification.
 */
import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import { orgAuditHeads, orgAuditLog } from '../../platform/db/schema/audit.js';
import { AUDIT_GENESIS_LINK } from './chain.js';
import type { AuditRow } from './store.js';

/**
 * Locks the organisation's audit head until the transaction ends (creating it at the genesis link on first use):
 * sealers of every process take their turn on this row.
 * @returns the seq and link of the last sealed entry.
 */
export async function lockAuditHead(tx: Executor, orgId: string): Promise<{ seq: number; link: Buffer }> {
  const [head] = await tx
    .insert(orgAuditHeads)
    .values({ orgId, seq: 0, link: AUDIT_GENESIS_LINK })
    .onConflictDoUpdate({ target: orgAuditHeads.orgId, set: { seq: sql`${orgAuditHeads.seq}` } })
    .returning({ seq: orgAuditHeads.seq, link: orgAuditHeads.link });
  return head!;
}

/**
 * The organisation's committed unsealed entries in ID order (the order they were written in, to the millisecond),
 * at most `limit` (count).
 */
export function unsealedEntries(tx: Executor, orgId: string, limit: number): Promise<AuditRow[]> {
  return tx
    .select()
    .from(orgAuditLog)
    .where(and(eq(orgAuditLog.orgId, orgId), isNull(orgAuditLog.seq)))
    .orderBy(asc(orgAuditLog.id))
    .limit(limit);
}

/**
 * Writes each entry's seq and link (one statement; they travel as one JSON parameter) and moves the head to the last.
 * @param seals - in chain order, all of one organisation.
 */
export async function storeAuditSeals(
  tx: Executor,
  orgId: string,
  seals: Array<{ id: string; seq: number; link: Buffer }>,
): Promise<void> {
  const last = seals.at(-1);
  if (!last) return;
  const json = JSON.stringify(seals.map((s) => ({ id: s.id, seq: s.seq, l: s.link.toString('hex') })));
  await tx.execute(sql`
    UPDATE org_audit_log e SET seq = v.seq, link = decode(v.l, 'hex')
    FROM json_to_recordset(${json}::json) AS v(id uuid, seq bigint, l text)
    WHERE e.org_id = ${orgId}::uuid AND e.id = v.id AND e.seq IS NULL`);
  await tx.update(orgAuditHeads).set({ seq: last.seq, link: last.link }).where(eq(orgAuditHeads.orgId, orgId));
}

/** The organisations with unsealed entries (the partial index `org_audit_log_unsealed`). */
export async function organisationsWithUnsealedAudit(db: Executor): Promise<string[]> {
  const rows = rowsOf<{ org_id: string }>(
    await db.execute(sql`SELECT DISTINCT org_id FROM org_audit_log WHERE seq IS NULL`),
  );
  return rows.map((r) => r.org_id);
}

/** The organisation's head (seq 0 and the genesis link when nothing is sealed yet). */
export async function auditHead(db: Executor, orgId: string): Promise<{ seq: number; link: Buffer }> {
  const [head] = await db
    .select({ seq: orgAuditHeads.seq, link: orgAuditHeads.link })
    .from(orgAuditHeads)
    .where(eq(orgAuditHeads.orgId, orgId));
  return head ?? { seq: 0, link: AUDIT_GENESIS_LINK };
}

/** Sealed entries after `afterSeq`, in chain order, at most `limit` (count). */
export function sealedEntriesAfter(db: Executor, orgId: string, afterSeq: number, limit: number): Promise<AuditRow[]> {
  return db
    .select()
    .from(orgAuditLog)
    .where(and(eq(orgAuditLog.orgId, orgId), gt(orgAuditLog.seq, afterSeq)))
    .orderBy(asc(orgAuditLog.seq))
    .limit(limit);
}

/** Whether the organisation has committed unsealed entries (one probe of `org_audit_log_unsealed`). */
export async function hasUnsealedAudit(db: Executor, orgId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: orgAuditLog.id })
    .from(orgAuditLog)
    .where(and(eq(orgAuditLog.orgId, orgId), isNull(orgAuditLog.seq)))
    .limit(1);
  return row !== undefined;
}
