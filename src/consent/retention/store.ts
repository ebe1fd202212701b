/** SQL of an organisation's data-retention setting. */
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/open.js';
import { organisations } from '../../platform/db/schema/index.js';

/** The stored setting: whether retention applies, and its period (seconds). */
export interface RetentionRow {
  enabled: boolean;
  periodSeconds: number;
}

const columns = { enabled: organisations.retentionEnabled, periodSeconds: organisations.retentionPeriodSeconds };

/** The organisation's setting, or null when there is no such organisation. */
export async function readRetention(db: Executor, orgId: string): Promise<RetentionRow | null> {
  const [row] = await db.select(columns).from(organisations).where(eq(organisations.id, orgId));
  return row ?? null;
}

/** Changes the setting; returns it, or null when there is no such organisation. */
export async function writeRetention(
  db: Executor,
  orgId: string,
  change: Partial<{ enabled: boolean; periodSeconds: number }>,
): Promise<RetentionRow | null> {
  const [row] = await db
    .update(organisations)
    .set({ retentionEnabled: change.enabled, retentionPeriodSeconds: change.periodSeconds, updatedAt: sql`now()` })
    .where(eq(organisations.id, orgId))
    .returning(columns);
  return row ?? null;
}
