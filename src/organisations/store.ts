/** SQL of organisations and their configuration, as the import writes them. */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type Db, type Executor, perDb, prepareRaw, rowsOf } from '../platform/db/open.js';
import {
  clients,
  consentRecords,
  dataAttributes,
  organisations,
  organisationTypes,
  purposeAttributes,
  purposes,
  subscriptions,
  userRoles,
  users,
} from '../platform/db/schema.js';

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

/** Replaces the roles a user holds in an organisation. */
export async function setRoles(db: Executor, userId: string, orgId: string, roleIds: number[]): Promise<void> {
  await db.delete(userRoles).where(and(eq(userRoles.userId, userId), eq(userRoles.orgId, orgId)));
  if (roleIds.length) await db.insert(userRoles).values(roleIds.map((roleId) => ({ userId, orgId, roleId })));
}

/**
 * Subscribes a user to an organisation and gives them its consent record
 * (docs/decisions/0008-consent-records-and-catalogue.md: one record per organisation and
 * individual). Both are no-ops when they exist; a record kept from an earlier subscription is
 * reused, with its history.
 * @returns whether the user was newly subscribed, and the consent record's ID.
 */
export async function subscribe(
  db: Executor,
  userId: string,
  orgId: string,
): Promise<{ subscribed: boolean; consentId: string }> {
  // One round trip, and no write when both exist (every returning sign-in subscribes again).
  const [row] = rowsOf<{ subscribed: boolean; id: string | null }>(
    await db.execute(sql`WITH s AS (
        INSERT INTO subscriptions (user_id, org_id) VALUES (${userId}, ${orgId})
        ON CONFLICT DO NOTHING RETURNING user_id),
      kept AS (SELECT id FROM consent_records WHERE org_id = ${orgId} AND user_id = ${userId}),
      added AS (
        INSERT INTO consent_records (id, org_id, user_id)
        SELECT ${uuidv7()}, ${orgId}, ${userId} WHERE NOT EXISTS (SELECT 1 FROM kept)
        ON CONFLICT (org_id, user_id) DO NOTHING RETURNING id)
      SELECT EXISTS (SELECT 1 FROM s) AS subscribed, coalesce((SELECT id FROM added), (SELECT id FROM kept)) AS id`),
  );
  if (row!.id) return { subscribed: row!.subscribed, consentId: row!.id };
  // A simultaneous subscription committed the record after this statement's snapshot: read it now.
  const [record] = await db
    .select({ id: consentRecords.id })
    .from(consentRecords)
    .where(and(eq(consentRecords.orgId, orgId), eq(consentRecords.userId, userId)));
  return { subscribed: row!.subscribed, consentId: record!.id };
}

/**
 * The SQL of a user's RoleIDs in an organisation, as an `int[]` (empty when none), for statements
 * that read the roles along with other things.
 * @param orgId - the organisation's ID column or parameter.
 * @param userId - the user's ID parameter.
 */
export function rolesSql(orgId: SQL, userId: SQL): SQL {
  return sql`coalesce((SELECT array_agg(ur.role_id) FROM user_roles ur
    WHERE ur.org_id = ${orgId} AND ur.user_id = ${userId}), '{}')`;
}

const rolesStatement = perDb((db) =>
  prepareRaw(
    db,
    'roles_in_organisation',
    sql`SELECT ${rolesSql(sql`o.id`, sql`${sql.placeholder('userId')}::uuid`)} AS roles
      FROM organisations o WHERE o.id = ${sql.placeholder('orgId')}::uuid`,
  ),
);

/**
 * The user's roles in the organisation (RoleIDs; empty when none), in one prepared statement. The
 * access checks ask it through `RolesCache` (src/organisations/roles-cache.ts).
 * @param db - the root handle (the statement is prepared per pooled connection).
 * @param orgId - a well-formed organisation ID.
 * @param userId - the user.
 * @returns null when the organisation does not exist.
 */
export async function rolesInOrganisation(db: Db, orgId: string, userId: string): Promise<number[] | null> {
  const [row] = rowsOf<{ roles: Array<number | string> }>(await rolesStatement(db).execute({ orgId, userId }));
  return row ? row.roles.map(Number) : null;
}

/** Deletes the user's admin roles and subscriptions in every organisation (account deletion). */
export async function leaveAll(tx: Executor, userId: string): Promise<void> {
  await tx.execute(sql`DELETE FROM user_roles WHERE user_id = ${userId}`);
  await tx.execute(sql`DELETE FROM subscriptions WHERE user_id = ${userId}`);
}

/** The organisation's name, or null when there is no organisation with that ID. */
export async function organisationName(db: Executor, orgId: string): Promise<string | null> {
  const [row] = await db.select({ name: organisations.name }).from(organisations).where(eq(organisations.id, orgId));
  return row?.name ?? null;
}

/** The user's subscriptions with their organisation's name, oldest first (the data export). */
export async function subscriptionsOf(
  db: Executor,
  userId: string,
): Promise<Array<{ orgId: string; name: string; since: Date; eulaAccepted: boolean }>> {
  return db
    .select({
      orgId: organisations.id,
      name: organisations.name,
      since: subscriptions.createdAt,
      eulaAccepted: subscriptions.eulaAccepted,
    })
    .from(subscriptions)
    .innerJoin(organisations, eq(organisations.id, subscriptions.orgId))
    .where(eq(subscriptions.userId, userId))
    .orderBy(subscriptions.createdAt, organisations.id);
}

/** The user's admin roles with their organisation's name, by organisation and RoleID (the data export). */
export async function rolesOf(
  db: Executor,
  userId: string,
): Promise<Array<{ orgId: string; name: string; roleId: number }>> {
  return db
    .select({ orgId: organisations.id, name: organisations.name, roleId: userRoles.roleId })
    .from(userRoles)
    .innerJoin(organisations, eq(organisations.id, userRoles.orgId))
    .where(eq(userRoles.userId, userId))
    .orderBy(organisations.id, userRoles.roleId);
}
