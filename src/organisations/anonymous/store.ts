/** SQL of anonymous users (docs/api.md "User management" "Add anonymous user"; docs/decisions/0012-account-deletion.md). */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { subscriptions, users } from '../../platform/db/schema/index.js';

/**
 * Inserts an anonymous user: no password, no e-mail, and a username no one can sign in with
 * (`anonymous:<ID>`, since it has no password).
 */
export async function insertAnonymous(tx: Executor, id: string): Promise<void> {
  await tx.insert(users).values({ id, username: `anonymous:${id}`, anonymous: true, passwordHash: null });
}

/** True when `userId` is an anonymous user subscribed to `orgId`; locks the user row (inside a transaction). */
export async function lockAnonymousSubscriber(tx: Executor, orgId: string, userId: string): Promise<boolean> {
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .innerJoin(subscriptions, and(eq(subscriptions.userId, users.id), eq(subscriptions.orgId, orgId)))
    .where(and(eq(users.id, userId), eq(users.anonymous, true)))
    .for('update', { of: users });
  return rows.length > 0;
}

/** Turns the anonymous user into a full account, keeping its ID (and so its consent records and history). */
export async function upgrade(
  tx: Executor,
  userId: string,
  fields: { username: string; name: string; email: string; phone: string; passwordHash: string | null },
): Promise<void> {
  await tx
    .update(users)
    .set({ ...fields, anonymous: false, updatedAt: sql`now()` })
    .where(eq(users.id, userId));
}
