/** SQL of consent records and their current attribute consents. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { type Executor, rowsOf } from '../db/open.js';
import { attributeConsents, consentRecords, dataAttributes, purposeAttributes, purposes } from '../db/schema.js';
import type { ConsentValue } from './values.js';

/** A consent record and whether its individual is subscribed now. */
export interface RecordRow {
  id: string;
  orgId: string;
  userId: string;
  createdAt: Date;
  subscribed: boolean;
}

/** The consent record of (organisation, individual), or null when there never was one. */
export async function findRecord(db: Executor, orgId: string, userId: string): Promise<RecordRow | null> {
  const [row] = await db
    .select({
      id: consentRecords.id,
      orgId: consentRecords.orgId,
      userId: consentRecords.userId,
      createdAt: consentRecords.createdAt,
      // Spelled out: Drizzle renders a lone table's columns unqualified, which the subquery would capture.
      subscribed: sql<boolean>`EXISTS (SELECT 1 FROM subscriptions s WHERE s.org_id = "consent_records"."org_id" AND s.user_id = "consent_records"."user_id")`,
    })
    .from(consentRecords)
    .where(and(eq(consentRecords.orgId, orgId), eq(consentRecords.userId, userId)));
  return row ?? null;
}

/** One (purpose, attribute) pair of a record with its stored consent (null fields when undecided). */
export interface ConsentRow {
  purposeId: string;
  purposeName: string;
  purposeDescription: string;
  lawfulUsage: boolean;
  policyUrl: string;
  /** Null for a purpose with no attributes. */
  attributeId: string | null;
  attributeName: string | null;
  value: ConsentValue | null;
  days: number | null;
  decidedAt: Date | null;
}

/**
 * The live purposes of the organisation (or one of them) with their live attributes and the
 * record's stored consents, in purpose then attribute creation order (one round trip).
 */
export async function readConsents(db: Executor, orgId: string, recordId: string, purposeId?: string): Promise<ConsentRow[]> {
  const rows = await db
    .select({
      purposeId: purposes.id,
      purposeName: purposes.name,
      purposeDescription: purposes.description,
      lawfulUsage: purposes.lawfulUsage,
      policyUrl: purposes.policyUrl,
      attributeId: dataAttributes.id,
      attributeName: dataAttributes.name,
      value: attributeConsents.value,
      days: attributeConsents.days,
      decidedAt: attributeConsents.decidedAt,
    })
    .from(purposes)
    .leftJoin(purposeAttributes, and(eq(purposeAttributes.purposeId, purposes.id), isNull(purposeAttributes.unlinkedAt)))
    .leftJoin(dataAttributes, and(eq(dataAttributes.id, purposeAttributes.attributeId), isNull(dataAttributes.deletedAt)))
    .leftJoin(
      attributeConsents,
      and(eq(attributeConsents.recordId, recordId), eq(attributeConsents.purposeId, purposes.id), eq(attributeConsents.attributeId, dataAttributes.id)),
    )
    .where(and(eq(purposes.orgId, orgId), isNull(purposes.deletedAt), purposeId ? eq(purposes.id, purposeId) : undefined))
    .orderBy(asc(purposes.createdAt), asc(purposes.id), asc(purposeAttributes.createdAt), asc(dataAttributes.id));
  // A purpose with no live attribute yields one row with a null attribute: the purpose's marker.
  return rows.map((r) => ({ ...r, value: r.value as ConsentValue | null }));
}

/**
 * Locks the consent record for the rest of the transaction, so that concurrent updates of one
 * record apply one after the other and none is lost (issue #3 "Concurrency").
 * @returns false when the record does not exist.
 */
export async function lockRecord(tx: Executor, recordId: string): Promise<boolean> {
  const result = await tx.execute(sql`SELECT id FROM consent_records WHERE id = ${recordId} FOR UPDATE`);
  return rowsOf(result).length > 0;
}

/** A consent to store. */
export interface ConsentWrite {
  recordId: string;
  purposeId: string;
  attributeId: string;
  userId: string;
  value: ConsentValue;
  days: number;
  decidedAt: Date;
  expiresAt: Date | null;
}

/** Inserts or replaces attribute consents. */
export async function writeConsents(tx: Executor, rows: ConsentWrite[]): Promise<void> {
  if (rows.length === 0) return;
  await tx
    .insert(attributeConsents)
    .values(rows)
    .onConflictDoUpdate({
      target: [attributeConsents.recordId, attributeConsents.purposeId, attributeConsents.attributeId],
      set: { value: sql`excluded.value`, days: sql`excluded.days`, decidedAt: sql`excluded.decided_at`, expiresAt: sql`excluded.expires_at` },
    });
}
