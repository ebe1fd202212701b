/** SQL of data attributes (the API's "templates") and their links to purposes. */
import { and, asc, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../platform/db/open.js';
import { dataAttributes, purposeAttributes, purposes } from '../../platform/db/schema/index.js';

/** A live data attribute with the live purposes it is linked to. */
export interface DataAttributeRow {
  id: string;
  name: string;
  purposeIds: string[];
}

/** Live data attributes of an organisation (all, or the given IDs), oldest first. */
export async function listDataAttributes(db: Executor, orgId: string, ids?: string[]): Promise<DataAttributeRow[]> {
  const rows = await db
    .select({
      id: dataAttributes.id,
      name: dataAttributes.name,
      purposeIds: sql<string[]>`coalesce((SELECT array_agg(pa.purpose_id::text ORDER BY pa.created_at, pa.purpose_id)
        FROM purpose_attributes pa JOIN purposes p ON p.id = pa.purpose_id
        WHERE pa.attribute_id = "data_attributes"."id" AND pa.unlinked_at IS NULL AND p.deleted_at IS NULL), '{}')`,
    })
    .from(dataAttributes)
    .where(
      and(
        eq(dataAttributes.orgId, orgId),
        isNull(dataAttributes.deletedAt),
        ids ? inArray(dataAttributes.id, ids) : undefined,
      ),
    )
    .orderBy(asc(dataAttributes.createdAt), asc(dataAttributes.id));
  return rows.map((r) => ({ ...r, purposeIds: [...r.purposeIds] }));
}

/** A data attribute of the organisation, deleted or not (for the evidence), or null. */
export async function findDataAttribute(db: Executor, orgId: string, id: string) {
  const [row] = await db
    .select({ id: dataAttributes.id, name: dataAttributes.name, deletedAt: dataAttributes.deletedAt })
    .from(dataAttributes)
    .where(and(eq(dataAttributes.id, id), eq(dataAttributes.orgId, orgId)));
  return row ?? null;
}

/** Which of `purposeIds` are live purposes of the organisation. */
export async function livePurposeIds(db: Executor, orgId: string, purposeIds: string[]): Promise<Set<string>> {
  if (purposeIds.length === 0) return new Set();
  const rows = await db
    .select({ id: purposes.id })
    .from(purposes)
    .where(and(eq(purposes.orgId, orgId), isNull(purposes.deletedAt), inArray(purposes.id, purposeIds)));
  return new Set(rows.map((r) => r.id));
}

/** Creates a data attribute linked to purposes; returns its ID. */
export async function insertDataAttribute(
  db: Executor,
  orgId: string,
  name: string,
  purposeIds: string[],
): Promise<string> {
  const id = uuidv7();
  await db.insert(dataAttributes).values({ id, orgId, name });
  if (purposeIds.length)
    await db.insert(purposeAttributes).values(purposeIds.map((purposeId) => ({ purposeId, attributeId: id })));
  return id;
}

/**
 * Renames a live data attribute and makes its live links exactly `purposeIds`: new links are added,
 * dropped ones marked unlinked (kept, for evidence). Returns whether the data attribute exists.
 */
export async function updateDataAttribute(
  db: Executor,
  orgId: string,
  id: string,
  name: string,
  purposeIds: string[],
): Promise<boolean> {
  const rows = await db
    .update(dataAttributes)
    .set({ name })
    .where(and(eq(dataAttributes.id, id), eq(dataAttributes.orgId, orgId), isNull(dataAttributes.deletedAt)))
    .returning({ id: dataAttributes.id });
  if (rows.length === 0) return false;
  await db
    .update(purposeAttributes)
    .set({ unlinkedAt: sql`now()` })
    .where(
      and(
        eq(purposeAttributes.attributeId, id),
        isNull(purposeAttributes.unlinkedAt),
        purposeIds.length ? notInArray(purposeAttributes.purposeId, purposeIds) : undefined,
      ),
    );
  if (purposeIds.length) {
    await db
      .insert(purposeAttributes)
      .values(purposeIds.map((purposeId) => ({ purposeId, attributeId: id })))
      .onConflictDoUpdate({
        target: [purposeAttributes.purposeId, purposeAttributes.attributeId],
        set: { unlinkedAt: null },
      });
  }
  return true;
}

/** Marks a live data attribute deleted; returns its name, or null when there was no such live attribute. */
export async function softDeleteDataAttribute(db: Executor, orgId: string, id: string): Promise<string | null> {
  const [row] = await db
    .update(dataAttributes)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(dataAttributes.id, id), eq(dataAttributes.orgId, orgId), isNull(dataAttributes.deletedAt)))
    .returning({ name: dataAttributes.name });
  return row?.name ?? null;
}
