/** SQL of an organisation's individuals: its subscriptions, in user-ID order. */
import { and, asc, count, eq, gt, ilike, or } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../platform/db/open.js';
import { consentRecords, subscriptions, users } from '../../platform/db/schema/index.js';
import { emitMembership } from '../membership/store.js';

/** An individual as the listings show them. */
export interface IndividualRow {
  id: string;
  name: string;
  email: string;
  phone: string;
}

const columns = { id: users.id, name: users.name, email: users.email, phone: users.phone };

/** `text` as a literal `ILIKE` pattern: its `%`, `_` and backslash match only themselves (PostgreSQL "LIKE"). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page of the organisation's subscribed users, by user ID, after `afterId` (a keyset on the
 * `subscriptions_org_user` index: each page costs O(limit) at any depth without `search`).
 * @param search - when given, only users whose name or e-mail contains it, ignoring case; the
 *   filter reads the organisation's subscriptions in ID order until the page is full (no text index).
 */
export async function subscribersPage(
  db: Executor,
  orgId: string,
  afterId: string | undefined,
  limit: number,
  search?: string,
): Promise<IndividualRow[]> {
  const pattern = search === undefined ? undefined : `%${literal(search)}%`;
  return db
    .select(columns)
    .from(subscriptions)
    .innerJoin(users, eq(users.id, subscriptions.userId))
    .where(
      and(
        eq(subscriptions.orgId, orgId),
        afterId ? gt(subscriptions.userId, afterId) : undefined,
        pattern ? or(ilike(users.name, pattern), ilike(users.email, pattern)) : undefined,
      ),
    )
    .orderBy(asc(subscriptions.userId))
    .limit(limit);
}

/** How many users are subscribed to the organisation (count). */
export async function countSubscribers(db: Executor, orgId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.orgId, orgId));
  return Number(row?.n ?? 0);
}

/** A user by ID, or null. */
export async function findUser(db: Executor, id: string): Promise<IndividualRow | null> {
  const [row] = await db.select(columns).from(users).where(eq(users.id, id));
  return row ?? null;
}

/**
 * A user subscribed to the organisation now, with their consent record's ID, or null (also for a
 * user who exists but is not subscribed: the organisation does not manage them).
 */
export async function findSubscriber(
  db: Executor,
  orgId: string,
  userId: string,
): Promise<(IndividualRow & { consentId: string }) | null> {
  const [row] = await db
    .select({ ...columns, consentId: consentRecords.id })
    .from(subscriptions)
    .innerJoin(users, eq(users.id, subscriptions.userId))
    .innerJoin(
      consentRecords,
      and(eq(consentRecords.orgId, subscriptions.orgId), eq(consentRecords.userId, subscriptions.userId)),
    )
    .where(and(eq(subscriptions.orgId, orgId), eq(subscriptions.userId, userId)));
  return row ?? null;
}

/** The account of a (lower-case) username, anywhere in Assent: its ID and profile e-mail; null when there is none. */
export async function findAccount(db: Executor, username: string): Promise<{ id: string; email: string } | null> {
  const [row] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.username, username));
  return row ?? null;
}

/** Creates a user; returns it. */
export async function createUser(
  db: Executor,
  user: { username: string; name: string; email: string; phone: string; passwordHash: string | null },
): Promise<IndividualRow> {
  const [row] = await db
    .insert(users)
    .values({ id: uuidv7(), ...user })
    .returning(columns);
  return row!;
}

/**
 * Ends a subscription, with an `individual.unsubscribed` event (docs/events.md); the consent record and its history
 * stay. Call it in a transaction, so that the end and its event commit together.
 * @returns whether there was one.
 */
export async function unsubscribe(db: Executor, orgId: string, userId: string): Promise<boolean> {
  const rows = await db
    .delete(subscriptions)
    .where(and(eq(subscriptions.orgId, orgId), eq(subscriptions.userId, userId)))
    .returning({ userId: subscriptions.userId });
  if (rows.length > 0) await emitMembership(db, orgId, userId, 'individual.unsubscribed');
  return rows.length > 0;
}
