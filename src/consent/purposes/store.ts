/** SQL of an organisation's purposes. Deletion is soft: consent evidence keeps naming the purpose. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../platform/db/open.js';
import { organisations, organisationTypes, purposes } from '../../platform/db/schema/index.js';

/** A stored purpose. */
export type PurposeRow = typeof purposes.$inferSelect;

/** The editable fields of a purpose. */
export interface PurposeFields {
  name: string;
  description: string;
  lawfulUsage: boolean;
  policyUrl: string;
}

/** Live (not deleted) purposes of an organisation, oldest first. */
export async function listPurposes(db: Executor, orgId: string): Promise<PurposeRow[]> {
  return db
    .select()
    .from(purposes)
    .where(and(eq(purposes.orgId, orgId), isNull(purposes.deletedAt)))
    .orderBy(asc(purposes.createdAt), asc(purposes.id));
}

/**
 * A purpose of the organisation, or null.
 * @param live - only a live one (the default); false finds a deleted one too, for the evidence.
 */
export async function findPurpose(
  db: Executor,
  orgId: string,
  purposeId: string,
  live = true,
): Promise<PurposeRow | null> {
  const [row] = await db
    .select()
    .from(purposes)
    .where(and(eq(purposes.id, purposeId), eq(purposes.orgId, orgId), live ? isNull(purposes.deletedAt) : undefined));
  return row ?? null;
}

/** Creates purposes; returns them in the order given. */
export async function insertPurposes(db: Executor, orgId: string, items: PurposeFields[]): Promise<PurposeRow[]> {
  return db
    .insert(purposes)
    .values(items.map((p) => ({ id: uuidv7(), orgId, ...p })))
    .returning();
}

/** Replaces a live purpose's fields; returns it, or null when there is none. */
export async function updatePurpose(
  db: Executor,
  orgId: string,
  purposeId: string,
  fields: PurposeFields,
): Promise<PurposeRow | null> {
  const [row] = await db
    .update(purposes)
    .set(fields)
    .where(and(eq(purposes.id, purposeId), eq(purposes.orgId, orgId), isNull(purposes.deletedAt)))
    .returning();
  return row ?? null;
}

/** Marks a live purpose deleted; returns its name, or null when there was no such live purpose. */
export async function softDeletePurpose(db: Executor, orgId: string, purposeId: string): Promise<string | null> {
  const [row] = await db
    .update(purposes)
    .set({ deletedAt: sql`now()` })
    .where(and(eq(purposes.id, purposeId), eq(purposes.orgId, orgId), isNull(purposes.deletedAt)))
    .returning({ name: purposes.name });
  return row?.name ?? null;
}

/** The organisation with its type, or null. */
export async function findOrganisation(db: Executor, orgId: string) {
  const [row] = await db
    .select({ org: organisations, typeName: organisationTypes.name })
    .from(organisations)
    .leftJoin(organisationTypes, eq(organisationTypes.id, organisations.typeId))
    .where(eq(organisations.id, orgId));
  return row ?? null;
}
