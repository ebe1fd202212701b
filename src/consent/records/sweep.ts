/**
 * The AskMe expiry sweep (docs/decisions/0005-consent-evidence.md "Evidence"; docs/api.md "AskMe with days"): an AskMe
 * whose days ran out already reads Disallow; the sweep makes that stored and recorded, with one `system` event per
 * expired attribute, so the history shows when the consent lapsed. Safe to run from several processes at once: each
 * record is re-checked under its lock.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../platform/db/open.js';
import { attributeConsents, consentRecords } from '../../platform/db/schema/index.js';
import { schedulePeriodic } from '../../platform/jobs/periodic.js';
import { appendEvents, EXPIRY_ENDPOINT } from '../evidence/append-store.js';
import type { ChainSealer } from '../evidence/sealer.js';
import { lockRecord } from './store.js';

/** Records handled per sweep round (count). */
const BATCH = 500;

const expired = (now: Date) => and(eq(attributeConsents.value, 'AskMe'), lte(attributeConsents.expiresAt, now));

async function expiredRecords(db: Db, now: Date): Promise<Array<{ recordId: string; orgId: string }>> {
  return db
    .selectDistinct({ recordId: attributeConsents.recordId, orgId: consentRecords.orgId })
    .from(attributeConsents)
    .innerJoin(consentRecords, eq(consentRecords.id, attributeConsents.recordId))
    .where(expired(now))
    .limit(BATCH);
}

/**
 * Turns one record's expired AskMe consents into Disallow and appends their events.
 * @returns how many attributes lapsed (count).
 */
async function sweepRecord(
  db: Db,
  record: { recordId: string; orgId: string },
  now: Date,
  requestId: string,
): Promise<number> {
  return db.transaction(async (tx) => {
    await lockRecord(tx, record.recordId);
    // Re-read under the lock: another process, or the individual, may have changed them meanwhile.
    const lapsed = await tx
      .select()
      .from(attributeConsents)
      .where(and(eq(attributeConsents.recordId, record.recordId), expired(now)));
    if (lapsed.length === 0) return 0;
    await tx
      .update(attributeConsents)
      .set({ value: 'Disallow', days: 0, decidedAt: sql`${attributeConsents.expiresAt}`, expiresAt: null })
      .where(and(eq(attributeConsents.recordId, record.recordId), expired(now)));
    const contents = lapsed.map((row) => ({
      recordId: record.recordId,
      userId: row.userId,
      purposeId: row.purposeId,
      attributeId: row.attributeId,
      oldValue: 'AskMe' as const,
      newValue: 'Disallow' as const,
      oldDays: row.days,
      newDays: 0,
      occurredAt: now.toISOString(),
      actor: { type: 'system' as const },
      channel: { endpoint: EXPIRY_ENDPOINT, userAgent: '' },
      requestId,
    }));
    await appendEvents(tx, record.orgId, contents);
    return lapsed.length;
  });
}

/**
 * Runs one sweep over every expired AskMe.
 * @param now - the instant that decides expiry.
 * @returns how many attributes lapsed (count), and the organisations whose chains got events.
 */
export async function sweepExpiredAskMe(db: Db, now = new Date()): Promise<{ lapsed: number; orgIds: Set<string> }> {
  const requestId = `sweep-${randomUUID()}`;
  let lapsed = 0;
  const orgIds = new Set<string>();
  for (;;) {
    const records = await expiredRecords(db, now);
    for (const record of records) {
      const n = await sweepRecord(db, record, now, requestId);
      if (n > 0) orgIds.add(record.orgId);
      lapsed += n;
    }
    if (records.length < BATCH) return { lapsed, orgIds };
  }
}

/**
 * Runs the sweep every `seconds` until stopped (first run after one period). A failed round is logged (one line, no
 * query parameters) and the next one retries. The sealer is woken for the organisations that got events, as after
 * any change.
 * @param seconds - the period (seconds).
 * @returns a function that stops it after the round under way.
 */
export function scheduleSweep(
  log: FastifyBaseLogger,
  db: Db,
  sealer: ChainSealer,
  seconds: number,
): () => Promise<void> {
  return schedulePeriodic(log, seconds, 'AskMe expiry sweep', async () => {
    const { lapsed, orgIds } = await sweepExpiredAskMe(db);
    for (const orgId of orgIds) sealer.wake(orgId);
    if (lapsed > 0) log.info({ lapsed }, 'AskMe consents lapsed');
  });
}
