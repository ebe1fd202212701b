/** SQL of an organisation's staff: the users holding admin roles in it (table `user_roles`; docs/staff.md). */
import { sql } from 'drizzle-orm';
import { Role } from '../../platform/core/roles.js';
import { type Executor, rowsOf } from '../../platform/db/open.js';

/** A staff member with their roles in one organisation. */
export interface StaffRow {
  id: string;
  username: string;
  name: string;
  email: string;
  /** RoleIDs, ascending. */
  roles: number[];
}

/** The staff rows of `where`, by user ID, at most `limit`. */
async function staffWhere(db: Executor, orgId: string, where: ReturnType<typeof sql>, limit: number) {
  const rows = rowsOf<{ id: string; username: string; name: string; email: string; roles: Array<number | string> }>(
    await db.execute(sql`SELECT u.id, u.username, u.name, u.email, array_agg(r.role_id ORDER BY r.role_id) AS roles
      FROM user_roles r JOIN users u ON u.id = r.user_id
      WHERE r.org_id = ${orgId} AND ${where}
      GROUP BY u.id ORDER BY u.id LIMIT ${limit}`),
  );
  return rows.map((r): StaffRow => ({ ...r, roles: r.roles.map(Number) }));
}

/**
 * One page of the organisation's staff by user ID, after `afterId` (exclusive), at most `limit` rows.
 * @param afterId - a well-formed user ID, or undefined for the first page.
 */
export function staffPage(db: Executor, orgId: string, afterId: string | undefined, limit: number) {
  return staffWhere(db, orgId, afterId ? sql`u.id > ${afterId}` : sql`true`, limit);
}

/** The staff member `userId` of the organisation, or null when they hold no role in it. */
export async function staffMember(db: Executor, orgId: string, userId: string): Promise<StaffRow | null> {
  const [row] = await staffWhere(db, orgId, sql`u.id = ${userId}`, 1);
  return row ?? null;
}

/**
 * Locks the organisation's row until the transaction ends, so that changes of its staff run one after the other: two
 * Owners demoting each other at once cannot both see the other as the remaining Owner.
 * @returns whether the organisation exists.
 */
export async function lockStaff(tx: Executor, orgId: string): Promise<boolean> {
  return rowsOf(await tx.execute(sql`SELECT id FROM organisations WHERE id = ${orgId} FOR UPDATE`)).length > 0;
}

/** How many users hold the Owner role in the organisation (count). */
export async function ownerCount(tx: Executor, orgId: string): Promise<number> {
  const [row] = rowsOf<{ n: number | string }>(
    await tx.execute(sql`SELECT count(*) AS n FROM user_roles WHERE org_id = ${orgId} AND role_id = ${Role.Owner}`),
  );
  return Number(row!.n);
}

/** The user's RoleIDs in the organisation, ascending (empty when none). */
export async function rolesHeld(tx: Executor, orgId: string, userId: string): Promise<number[]> {
  return rowsOf<{ role_id: number | string }>(
    await tx.execute(
      sql`SELECT role_id FROM user_roles WHERE org_id = ${orgId} AND user_id = ${userId} ORDER BY role_id`,
    ),
  ).map((r) => Number(r.role_id));
}

/**
 * Makes the user's roles in the organisation exactly `roles` (none removes them from the staff). The trigger of
 * migration 0011 tells every process's role cache (src/organisations/membership/roles-cache.ts).
 * @param roles - RoleIDs, each one of 1–4.
 */
export async function setRoles(tx: Executor, orgId: string, userId: string, roles: number[]): Promise<void> {
  const list = sql.join(
    roles.map((r) => sql`${r}`),
    sql`, `,
  );
  await tx.execute(
    roles.length > 0
      ? sql`DELETE FROM user_roles WHERE org_id = ${orgId} AND user_id = ${userId} AND role_id NOT IN (${list})`
      : sql`DELETE FROM user_roles WHERE org_id = ${orgId} AND user_id = ${userId}`,
  );
  for (const role of roles)
    await tx.execute(sql`INSERT INTO user_roles (user_id, org_id, role_id) VALUES (${userId}, ${orgId}, ${role})
      ON CONFLICT DO NOTHING`);
}

/** A user's username and e-mail field, or null when there is no such user. */
export async function account(
  db: Executor,
  userId: string,
): Promise<{ id: string; username: string; email: string } | null> {
  const [row] = rowsOf<{ id: string; username: string; email: string }>(
    await db.execute(sql`SELECT id, username, email FROM users WHERE id = ${userId}`),
  );
  return row ?? null;
}

/** The ID of the account whose username is `username` (lower case), or null. */
export async function accountIdByUsername(db: Executor, username: string): Promise<string | null> {
  const [row] = rowsOf<{ id: string }>(await db.execute(sql`SELECT id FROM users WHERE username = ${username}`));
  return row?.id ?? null;
}

/** The organisations where the user holds a role, by ID. */
export async function staffOrganisations(db: Executor, userId: string): Promise<string[]> {
  return rowsOf<{ org_id: string }>(
    await db.execute(sql`SELECT DISTINCT org_id FROM user_roles WHERE user_id = ${userId} ORDER BY org_id`),
  ).map((r) => r.org_id);
}

/** Whether the organisation requires its staff to use a second factor; null when it does not exist. */
export async function staffPolicy(db: Executor, orgId: string): Promise<boolean | null> {
  const [row] = rowsOf<{ required: boolean }>(
    await db.execute(sql`SELECT staff_mfa_required AS required FROM organisations WHERE id = ${orgId}`),
  );
  return row ? row.required : null;
}

/** Sets whether the organisation requires its staff to use a second factor. */
export async function setStaffPolicy(tx: Executor, orgId: string, required: boolean): Promise<void> {
  await tx.execute(
    sql`UPDATE organisations SET staff_mfa_required = ${required}, updated_at = now() WHERE id = ${orgId}`,
  );
}

/** Whether the user holds a role in an organisation that requires its staff to use a second factor. */
export async function requiresStaffFactor(db: Executor, userId: string): Promise<boolean> {
  const [row] = rowsOf<{ yes: boolean }>(
    await db.execute(sql`SELECT EXISTS (SELECT 1 FROM user_roles r JOIN organisations o ON o.id = r.org_id
      WHERE r.user_id = ${userId} AND o.staff_mfa_required) AS yes`),
  );
  return row!.yes;
}
