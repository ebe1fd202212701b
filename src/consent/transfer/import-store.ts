/**
 * SQL of the consent history import (`import.ts`; docs/operations.md "Consent history"): locking the
 * consent records it adds to, and what they already hold.
 */
import { sql } from 'drizzle-orm';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Executor, rowsOf } from '../../platform/db/open.js';
import type { ConsentValue, StoredConsent } from '../model/values.js';

/**
 * Locks the consent records for the rest of the transaction and bumps their `version`, as every writer
 * of a record's consents does (`store.lockRecord`; docs/decisions/0006-consent-concurrency.md), in one
 * statement, in ID order so that two imports never deadlock.
 * @param recordIds - distinct consent record IDs.
 */
export async function lockRecords(tx: Executor, recordIds: string[]): Promise<void> {
  if (recordIds.length === 0) return;
  await tx.execute(sql`UPDATE consent_records SET version = version + 1
    WHERE id IN (SELECT id FROM consent_records WHERE id = ANY(${arrayLiteral(recordIds)}::uuid[]) ORDER BY id FOR UPDATE)`);
}

/** An event already recorded, as the import compares it. */
export interface RecordedEvent {
  recordId: string;
  purposeId: string;
  attributeId: string;
  /** milliseconds since the epoch */
  at: number;
  value: ConsentValue;
  /** days */
  days: number;
}

/** Every event already recorded for the consent records (sealed or not). */
export async function recordedEvents(tx: Executor, recordIds: string[]): Promise<RecordedEvent[]> {
  if (recordIds.length === 0) return [];
  const rows = rowsOf<{
    record_id: string;
    purpose_id: string;
    attribute_id: string;
    occurred_at: string | Date;
    new_value: ConsentValue;
    new_days: number;
  }>(
    await tx.execute(sql`SELECT record_id, purpose_id, attribute_id, occurred_at, new_value, new_days
      FROM consent_events WHERE record_id = ANY(${arrayLiteral(recordIds)}::uuid[])`),
  );
  return rows.map((r) => ({
    recordId: r.record_id,
    purposeId: r.purpose_id,
    attributeId: r.attribute_id,
    at: new Date(r.occurred_at).getTime(),
    value: r.new_value,
    days: r.new_days,
  }));
}

/** The stored attribute consents of the records, keyed `recordId/purposeId/attributeId`. */
export async function storedConsents(tx: Executor, recordIds: string[]): Promise<Map<string, StoredConsent>> {
  const stored = new Map<string, StoredConsent>();
  if (recordIds.length === 0) return stored;
  const rows = rowsOf<{
    record_id: string;
    purpose_id: string;
    attribute_id: string;
    value: ConsentValue;
    days: number;
    decided_at: string | Date;
  }>(
    await tx.execute(sql`SELECT record_id, purpose_id, attribute_id, value, days, decided_at
      FROM attribute_consents WHERE record_id = ANY(${arrayLiteral(recordIds)}::uuid[])`),
  );
  for (const r of rows)
    stored.set(`${r.record_id}/${r.purpose_id}/${r.attribute_id}`, {
      value: r.value,
      days: r.days,
      decidedAt: new Date(r.decided_at),
      isDefault: false,
    });
  return stored;
}
