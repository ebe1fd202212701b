/** SQL of users, their subscriptions and their roles. */
import { eq, sql } from 'drizzle-orm';
import { type Db, type Executor, perDb, rowsOf, statementHandle } from '../../platform/db/open.js';
import { users } from '../../platform/db/schema/index.js';

/** A stored user. */
export type UserRow = typeof users.$inferSelect;

/** Replaces the password hash (re-hash on login, or a password change). */
export async function setPasswordHash(db: Executor, id: string, passwordHash: string): Promise<void> {
  await db.update(users).set({ passwordHash, updatedAt: sql`now()` }).where(eq(users.id, id));
}

/** Changes the profile fields a user may edit; returns the updated row. */
export async function updateProfile(
  db: Executor,
  id: string,
  fields: Partial<Pick<UserRow, 'name' | 'phone' | 'clientToken' | 'clientType'>>,
): Promise<UserRow | null> {
  const [row] = await db
    .update(users)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(eq(users.id, id))
    .returning();
  return row ?? null;
}

/** A user with everything the User record of docs/api.md "Resources" shows, read in one round trip. */
export interface UserProfile {
  row: UserRow;
  orgs: Array<{ orgId: string; name: string; location: string; type: string; typeId: string; eulaAccepted: boolean }>;
  roles: Array<{ roleId: number; orgId: string }>;
  /** The newest live API key, still sealed, or null. */
  apiKeySealed: string | null;
}

/**
 * The columns of a `UserProfile` besides the row, as correlated subqueries on `"users"."id"`, so
 * that any select over `users` can read a whole profile in the same round trip.
 */
export const profileColumns = {
  orgs: sql<unknown>`(SELECT coalesce(json_agg(json_build_object(
      'orgId', o.id, 'name', o.name, 'location', o.location, 'type', coalesce(t.name, ''),
      'typeId', coalesce(t.id::text, ''), 'eulaAccepted', s.eula_accepted) ORDER BY o.id), '[]'::json)
    FROM subscriptions s JOIN organisations o ON o.id = s.org_id LEFT JOIN organisation_types t ON t.id = o.type_id
    WHERE s.user_id = "users"."id")`,
  roles: sql<unknown>`(SELECT coalesce(json_agg(json_build_object('roleId', r.role_id, 'orgId', r.org_id)
      ORDER BY r.org_id, r.role_id), '[]'::json)
    FROM user_roles r WHERE r.user_id = "users"."id")`,
  apiKeySealed: sql<string | null>`(SELECT k.token_sealed FROM api_keys k
    WHERE k.user_id = "users"."id" AND k.revoked_at IS NULL AND k.expires_at > now()
    ORDER BY k.created_at DESC LIMIT 1)`,
};

/**
 * Builds a `UserProfile` from a row selected with `profileColumns` (PGlite parses JSON columns,
 * node-postgres parses them too, but a driver that answers text is handled).
 */
export function toProfile(found: {
  row: UserRow;
  orgs: unknown;
  roles: unknown;
  apiKeySealed: string | null;
}): UserProfile {
  const json = <T>(v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  return { row: found.row, orgs: json(found.orgs), roles: json(found.roles), apiKeySealed: found.apiKeySealed };
}

const profileById = perDb((db) =>
  statementHandle(db)
    .select({ row: users, ...profileColumns })
    .from(users)
    .where(eq(users.id, sql.placeholder('userId')))
    .prepare('user_profile'),
);

/**
 * The user's row, subscriptions, roles and live API key, or null when there is no such user
 * (one prepared statement).
 */
export async function userProfile(db: Db, userId: string): Promise<UserProfile | null> {
  const [found] = await profileById(db).execute({ userId });
  return found ? toProfile(found) : null;
}

/** What a password check or change needs to know about an account (passwords domain). */
export interface CredentialAccount {
  id: string;
  /** Lower-case username. */
  username: string;
  /** E-mail address, or `''` when none. */
  email: string;
  /** PHC string, or null when the account has no password. */
  passwordHash: string | null;
}

/**
 * A live (not deleted) account by ID.
 * @returns the account, or null.
 */
export async function credentialAccountById(db: Executor, userId: string): Promise<CredentialAccount | null> {
  const result = await db.execute(sql`
    SELECT id, username, email, password_hash AS "passwordHash" FROM users
    WHERE id = ${userId} AND deleted_at IS NULL`);
  return rowsOf<CredentialAccount>(result)[0] ?? null;
}

/**
 * A live (not deleted) account by normalised username.
 * @returns the account, or null.
 */
export async function credentialAccountByUsername(db: Executor, username: string): Promise<CredentialAccount | null> {
  const result = await db.execute(sql`
    SELECT id, username, email, password_hash AS "passwordHash" FROM users
    WHERE username = ${username} AND deleted_at IS NULL`);
  return rowsOf<CredentialAccount>(result)[0] ?? null;
}

/**
 * Scrubs the user: name, e-mail, phone, username (replaced by `deleted:<ID>`), password hash,
 * device token and image reference; marks it deleted.
 * @returns the old username (to clear its throttle state), or null when there is no live user of that ID.
 */
export async function scrubUser(tx: Executor, userId: string): Promise<string | null> {
  const result = await tx.execute(sql`
    UPDATE users u SET username = 'deleted:' || u.id::text, name = '', email = '', phone = '', password_hash = NULL,
      client_token = '', client_type = 0, image_id = '', anonymous = false, deleted_at = now(), updated_at = now()
    FROM (SELECT id, username FROM users WHERE id = ${userId} AND deleted_at IS NULL FOR UPDATE) old
    WHERE u.id = old.id RETURNING old.username`);
  return rowsOf<{ username: string }>(result)[0]?.username ?? null;
}
