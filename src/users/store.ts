/** SQL of users, their subscriptions and their roles. */
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/open.js';
import { organisations, organisationTypes, subscriptions, userRoles, users } from '../db/schema.js';

/** A stored user. */
export type UserRow = typeof users.$inferSelect;

/** The user with this lower-case username, or null. */
export async function findByUsername(db: Executor, username: string): Promise<Pick<UserRow, 'id' | 'passwordHash'> | null> {
  const [row] = await db.select({ id: users.id, passwordHash: users.passwordHash }).from(users).where(eq(users.username, username));
  return row ?? null;
}

/** The user with this ID, or null. */
export async function findById(db: Executor, id: string): Promise<UserRow | null> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row ?? null;
}

/** Replaces the password hash (re-hash on login, or a password change). */
export async function setPasswordHash(db: Executor, id: string, passwordHash: string): Promise<void> {
  await db.update(users).set({ passwordHash, updatedAt: sql`now()` }).where(eq(users.id, id));
}

/** Sets `LastVisit` to now and returns the updated row. */
export async function touchLastVisit(db: Executor, id: string): Promise<UserRow | null> {
  const [row] = await db.update(users).set({ lastVisitAt: sql`now()` }).where(eq(users.id, id)).returning();
  return row ?? null;
}

/** Changes the profile fields a user may edit; returns the updated row. */
export async function updateProfile(
  db: Executor,
  id: string,
  fields: Partial<Pick<UserRow, 'name' | 'phone' | 'clientToken' | 'clientType'>>,
): Promise<UserRow | null> {
  const [row] = await db.update(users).set({ ...fields, updatedAt: sql`now()` }).where(eq(users.id, id)).returning();
  return row ?? null;
}

/** Organisations the user is subscribed to, with their type. */
export async function subscribedOrgs(db: Executor, userId: string) {
  return db
    .select({
      orgId: organisations.id,
      name: organisations.name,
      location: organisations.location,
      type: sql<string>`coalesce(${organisationTypes.name}, '')`,
      typeId: sql<string>`coalesce(${organisationTypes.id}::text, '')`,
      eulaAccepted: subscriptions.eulaAccepted,
    })
    .from(subscriptions)
    .innerJoin(organisations, eq(organisations.id, subscriptions.orgId))
    .leftJoin(organisationTypes, eq(organisationTypes.id, organisations.typeId))
    .where(eq(subscriptions.userId, userId))
    .orderBy(organisations.id);
}

/** Admin roles the user holds, per organisation. */
export async function rolesOf(db: Executor, userId: string): Promise<Array<{ roleId: number; orgId: string }>> {
  return db
    .select({ roleId: userRoles.roleId, orgId: userRoles.orgId })
    .from(userRoles)
    .where(eq(userRoles.userId, userId))
    .orderBy(userRoles.orgId, userRoles.roleId);
}
