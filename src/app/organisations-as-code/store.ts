/**
 * SQL of `assent import` (docs/decisions/0004-organisations-as-code.md): the writes that create or update
 * organisations, their purposes and data attributes, users, roles and OAuth clients from an organisations file. A
 * use case that spans contexts, like the import itself; the run-time paths of each context keep their own stores.
 */
import { and, eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import {
  clients,
  dataAttributes,
  organisations,
  organisationTypes,
  purposeAttributes,
  purposes,
  userRoles,
  users,
} from '../../platform/db/schema/index.js';

/** Registers a client, or finds it; returns its row ID. */
export async function upsertClient(db: Executor, clientId: string): Promise<string> {
  const [row] = await db
    .insert(clients)
    .values({ id: uuidv7(), clientId })
    .onConflictDoUpdate({ target: clients.clientId, set: { clientId: sql`excluded.client_id` } })
    .returning({ id: clients.id });
  return row!.id;
}

/** Finds or creates an organisation type by name; returns its ID. */
export async function upsertOrganisationType(db: Executor, name: string): Promise<string> {
  const [row] = await db
    .insert(organisationTypes)
    .values({ id: uuidv7(), name })
    .onConflictDoUpdate({ target: organisationTypes.name, set: { name: sql`excluded.name` } })
    .returning({ id: organisationTypes.id });
  return row!.id;
}

/** Creates or updates an organisation by its import key; returns its ID. */
export async function upsertOrganisation(
  db: Executor,
  org: Omit<typeof organisations.$inferInsert, 'id' | 'createdAt' | 'updatedAt'> & { key: string },
): Promise<string> {
  const [row] = await db
    .insert(organisations)
    .values({ id: uuidv7(), ...org })
    .onConflictDoUpdate({ target: organisations.key, set: { ...org, updatedAt: sql`now()` } })
    .returning({ id: organisations.id });
  return row!.id;
}

/** Creates, updates or restores a purpose by (organisation, key); returns its ID. */
export async function upsertPurpose(
  db: Executor,
  purpose: { orgId: string; key: string; name: string; description: string; lawfulUsage: boolean; policyUrl: string },
): Promise<string> {
  const { orgId, key, ...fields } = purpose;
  const [row] = await db
    .insert(purposes)
    .values({ id: uuidv7(), ...purpose })
    .onConflictDoUpdate({ target: [purposes.orgId, purposes.key], set: { ...fields, deletedAt: null } })
    .returning({ id: purposes.id });
  return row!.id;
}

/** A purpose by its import key as stored before the import changes it, or undefined. */
export async function purposeByKey(
  db: Executor,
  orgId: string,
  key: string,
): Promise<
  | { id: string; name: string; description: string; lawfulUsage: boolean; policyUrl: string; deletedAt: Date | null }
  | undefined
> {
  const [row] = await db
    .select({
      id: purposes.id,
      name: purposes.name,
      description: purposes.description,
      lawfulUsage: purposes.lawfulUsage,
      policyUrl: purposes.policyUrl,
      deletedAt: purposes.deletedAt,
    })
    .from(purposes)
    .where(and(eq(purposes.orgId, orgId), eq(purposes.key, key)));
  return row;
}

/**
 * A data attribute by (purpose, import key) as stored before the import changes it, with whether it is linked to
 * that purpose now, or undefined.
 */
export async function attributeByKey(
  db: Executor,
  purposeId: string,
  key: string,
): Promise<{ id: string; name: string; deletedAt: Date | null; linked: boolean } | undefined> {
  const result = await db.execute(sql`SELECT a.id, a.name, a.deleted_at,
      EXISTS (SELECT 1 FROM purpose_attributes l
        WHERE l.purpose_id = ${purposeId} AND l.attribute_id = a.id AND l.unlinked_at IS NULL) AS linked
    FROM data_attributes a WHERE a.purpose_id = ${purposeId} AND a.key = ${key}`);
  const row = rowsOf<{ id: string; name: string; deleted_at: Date | string | null; linked: boolean }>(result)[0];
  return row
    ? { id: row.id, name: row.name, deletedAt: row.deleted_at ? new Date(row.deleted_at) : null, linked: row.linked }
    : undefined;
}

/** Creates, updates or restores a data attribute by (purpose, key), linked to that purpose; returns its ID. */
export async function upsertAttribute(
  db: Executor,
  attribute: { orgId: string; purposeId: string; key: string; name: string },
): Promise<string> {
  const [row] = await db
    .insert(dataAttributes)
    .values({ id: uuidv7(), ...attribute })
    .onConflictDoUpdate({
      target: [dataAttributes.purposeId, dataAttributes.key],
      set: { name: attribute.name, deletedAt: null },
    })
    .returning({ id: dataAttributes.id });
  await db
    .insert(purposeAttributes)
    .values({ purposeId: attribute.purposeId, attributeId: row!.id })
    .onConflictDoUpdate({
      target: [purposeAttributes.purposeId, purposeAttributes.attributeId],
      set: { unlinkedAt: null },
    });
  return row!.id;
}

/** Existing users by lower-case username, with their hashes. */
export async function usersByUsername(
  db: Executor,
  usernames: string[],
): Promise<Map<string, { id: string; passwordHash: string | null }>> {
  if (usernames.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, username: users.username, passwordHash: users.passwordHash })
    .from(users)
    .where(sql`${users.username} IN ${usernames}`);
  return new Map(rows.map((r) => [r.username, { id: r.id, passwordHash: r.passwordHash }]));
}

/** Creates or updates a user by username; returns its ID. */
export async function upsertUser(
  db: Executor,
  user: { username: string; passwordHash: string; name?: string; email?: string; phone?: string },
): Promise<string> {
  const set: Record<string, unknown> = { passwordHash: user.passwordHash, updatedAt: sql`now()` };
  for (const field of ['name', 'email', 'phone'] as const) if (user[field] !== undefined) set[field] = user[field];
  const [row] = await db
    .insert(users)
    .values({ id: uuidv7(), ...user })
    .onConflictDoUpdate({ target: users.username, set })
    .returning({ id: users.id });
  return row!.id;
}

/**
 * Replaces the roles a user holds in an organisation.
 * @returns the RoleIDs they held before, ascending.
 */
export async function setRoles(db: Executor, userId: string, orgId: string, roleIds: number[]): Promise<number[]> {
  const before = await db
    .delete(userRoles)
    .where(and(eq(userRoles.userId, userId), eq(userRoles.orgId, orgId)))
    .returning({ roleId: userRoles.roleId });
  if (roleIds.length) await db.insert(userRoles).values(roleIds.map((roleId) => ({ userId, orgId, roleId })));
  return before.map((r) => r.roleId).sort((a, b) => a - b);
}
