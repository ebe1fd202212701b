/**
 * SQL of the organisations' notification transports (docs/notifications.md "Special consent
 * request") and of the device tokens a push service reported gone ("Mobile push").
 */
import { eq, sql } from 'drizzle-orm';
import { arrayLiteral } from '../../platform/db/arrays.js';
import type { Executor } from '../../platform/db/open.js';
import { notificationTransports } from '../../platform/db/schema/index.js';

/** An organisation's transports as stored. */
export type TransportRow = typeof notificationTransports.$inferSelect;

/** The organisation's transports, or null when none were ever configured. */
export async function readTransports(db: Executor, orgId: string): Promise<TransportRow | null> {
  const [row] = await db.select().from(notificationTransports).where(eq(notificationTransports.orgId, orgId));
  return row ?? null;
}

/** Creates or replaces the organisation's transports. */
export async function writeTransports(db: Executor, row: Omit<TransportRow, 'updatedAt'>): Promise<void> {
  const { orgId, ...fields } = row;
  await db
    .insert(notificationTransports)
    .values(row)
    .onConflictDoUpdate({ target: notificationTransports.orgId, set: { ...fields, updatedAt: sql`now()` } });
}

/**
 * Clears the device tokens that a push service reported gone (APNs 410, FCM UNREGISTERED), unless
 * the individual has registered another one meanwhile (docs/notifications.md "Mobile push").
 */
export async function clearDeviceTokens(db: Executor, gone: Array<{ userId: string; token: string }>): Promise<void> {
  if (gone.length === 0) return;
  await db.execute(sql`
    UPDATE users u SET client_token = ''
    FROM unnest(${arrayLiteral(gone.map((g) => g.userId))}::uuid[], ${arrayLiteral(gone.map((g) => g.token))}::text[])
      AS x(id, token)
    WHERE u.id = x.id AND u.client_token = x.token`);
}
