/** SQL of organisations' memberships and roles, and of the names other contexts show. */
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { Role } from '../../platform/core/roles.js';
import { type Db, type Executor, perDb, prepareRaw, rowsOf } from '../../platform/db/open.js';
import { consentRecords, organisations, subscriptions, userRoles } from '../../platform/db/schema/index.js';
import { appendOrganisationEvents } from '../../platform/events/outbox.js';

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
  let consentId = row!.id;
  if (!consentId) {
    // A simultaneous subscription committed the record after this statement's snapshot: read it now.
    const [record] = await db
      .select({ id: consentRecords.id })
      .from(consentRecords)
      .where(and(eq(consentRecords.orgId, orgId), eq(consentRecords.userId, userId)));
    consentId = record!.id;
  }
  if (row!.subscribed) await emitMembership(db, orgId, userId, 'individual.subscribed', consentId);
  return { subscribed: row!.subscribed, consentId };
}

/**
 * Writes an `individual.*` outbox event in the change's transaction (docs/events.md "Individual events"); the
 * sequencer's sweep, or the next wake of the organisation, numbers it after the commit.
 * @param consentId - the individual's consent record in the organisation, when known.
 */
export function emitMembership(
  db: Executor,
  orgId: string,
  userId: string,
  type: 'individual.subscribed' | 'individual.unsubscribed' | 'individual.deleted',
  consentId?: string,
): Promise<void> {
  const data = { OrganizationID: orgId, UserID: userId, ...(consentId ? { ConsentID: consentId } : {}) };
  return appendOrganisationEvents(db, orgId, [{ type, subject: userId, data }]);
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
 * access checks ask it through `RolesCache` (src/organisations/membership/roles-cache.ts).
 * @param db - the root handle (the statement is prepared per pooled connection).
 * @param orgId - a well-formed organisation ID.
 * @param userId - the user.
 * @returns null when the organisation does not exist.
 */
export async function rolesInOrganisation(db: Db, orgId: string, userId: string): Promise<number[] | null> {
  const [row] = rowsOf<{ roles: Array<number | string> }>(await rolesStatement(db).execute({ orgId, userId }));
  return row ? row.roles.map(Number) : null;
}

/**
 * Deletes the user's admin roles and subscriptions in every organisation (account deletion), with an
 * `individual.deleted` event in each organisation the user was subscribed to (docs/events.md).
 * @returns the organisations the user was subscribed to.
 */
export async function leaveAll(tx: Executor, userId: string): Promise<string[]> {
  await tx.execute(sql`DELETE FROM user_roles WHERE user_id = ${userId}`);
  const left = rowsOf<{ org_id: string }>(
    await tx.execute(sql`DELETE FROM subscriptions WHERE user_id = ${userId} RETURNING org_id`),
  ).map((r) => r.org_id);
  for (const orgId of left) await emitMembership(tx, orgId, userId, 'individual.deleted');
  return left;
}

/** The organisation's name, or null when there is no organisation with that ID. */
export async function organisationName(db: Executor, orgId: string): Promise<string | null> {
  const [row] = await db.select({ name: organisations.name }).from(organisations).where(eq(organisations.id, orgId));
  return row?.name ?? null;
}

/** The usernames and e-mail fields of the organisation's Owners, in username order. */
export async function owners(db: Executor, orgId: string): Promise<Array<{ username: string; email: string }>> {
  const result = await db.execute(sql`SELECT u.username, u.email FROM user_roles r JOIN users u ON u.id = r.user_id
    WHERE r.org_id = ${orgId} AND r.role_id = ${Role.Owner} ORDER BY u.username`);
  return rowsOf<{ username: string; email: string }>(result);
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
