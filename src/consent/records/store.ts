/** SQL of consent records and their current attribute consents. */
import { and, eq, sql } from 'drizzle-orm';
import { type Db, type Executor, perDb, prepareRaw, rowsOf } from '../../platform/db/open.js';
import { consentRecords } from '../../platform/db/schema/index.js';
import {
  EVENT_PLACEHOLDERS,
  eventParams,
  eventRecord,
  eventRows,
  queuedEventsSql,
  recordsetSource,
  valuesSource,
} from '../evidence/append-store.js';
import type { EventDraft } from '../evidence/chain.js';
import type { ConsentValue, StoredConsent } from '../model/values.js';

/** A consent record and whether its individual is subscribed now. */
export interface RecordRow {
  id: string;
  orgId: string;
  userId: string;
  createdAt: Date;
  subscribed: boolean;
  /** The record's version when read (see `writeChange`). */
  version: number;
}

/** The consent record of (organisation, individual), or null when there never was one. */
export async function findRecord(db: Executor, orgId: string, userId: string): Promise<RecordRow | null> {
  const [row] = await db
    .select({
      id: consentRecords.id,
      orgId: consentRecords.orgId,
      userId: consentRecords.userId,
      createdAt: consentRecords.createdAt,
      version: consentRecords.version,
      // Spelled out: Drizzle renders a lone table's columns unqualified, which the subquery would capture.
      subscribed: sql<boolean>`EXISTS (SELECT 1 FROM subscriptions s
        WHERE s.org_id = "consent_records"."org_id" AND s.user_id = "consent_records"."user_id")`,
    })
    .from(consentRecords)
    .where(and(eq(consentRecords.orgId, orgId), eq(consentRecords.userId, userId)));
  return row ?? null;
}

/**
 * Locks the consent record for the rest of the transaction, so that concurrent updates of one record apply one
 * after the other and none is lost (docs/decisions/0006-consent-concurrency.md "Concurrency"), and bumps its
 * `version`, so that a change still relying on an earlier read (`writeChange` with a version) fails. Call it only
 * in a transaction that goes on to change the record's consents.
 * @returns false when the record does not exist.
 */
export async function lockRecord(tx: Executor, recordId: string): Promise<boolean> {
  const result = await tx.execute(
    sql`UPDATE consent_records SET version = version + 1 WHERE id = ${recordId} RETURNING id`,
  );
  return rowsOf(result).length > 0;
}

/** A consent to store. */
export interface ConsentWrite {
  recordId: string;
  purposeId: string;
  attributeId: string;
  userId: string;
  value: ConsentValue;
  days: number;
  decidedAt: Date;
  expiresAt: Date | null;
}

/**
 * Locks the consent record for the rest of the transaction, then reads the stored consents of one of its purposes, so
 * that concurrent changes of one record apply one after the other and none is lost
 * (docs/decisions/0006-consent-concurrency.md "Concurrency"). Two statements on purpose: a statement that waited for
 * the lock still reads the other tables as of its own start, so one statement would read the consents as they were
 * before the change it waited for (the concurrency test caught exactly that).
 * @returns the stored consents by attribute ID (undecided attributes are absent).
 */
export async function lockAndReadConsents(
  tx: Executor,
  recordId: string,
  purposeId: string,
): Promise<Map<string, StoredConsent>> {
  await lockRecord(tx, recordId);
  const result = await tx.execute(sql`
    SELECT attribute_id, value, days, decided_at FROM attribute_consents
    WHERE record_id = ${recordId} AND purpose_id = ${purposeId}`);
  const stored = new Map<string, StoredConsent>();
  for (const row of rowsOf<{ attribute_id: string; value: ConsentValue; days: number; decided_at: string | Date }>(
    result,
  )) {
    stored.set(row.attribute_id, {
      value: row.value,
      days: row.days,
      decidedAt: new Date(row.decided_at),
      isDefault: false,
    });
  }
  return stored;
}

const ph = sql.placeholder;
const UPSERT_CONSENT = sql`INSERT INTO attribute_consents
  (record_id, purpose_id, attribute_id, user_id, value, days, decided_at, expires_at)`;
const ON_CONFLICT = sql`ON CONFLICT (record_id, purpose_id, attribute_id) DO UPDATE
  SET value = excluded.value, days = excluded.days, decided_at = excluded.decided_at, expires_at = excluded.expires_at`;

// The optimistic change of one attribute (every PATCH of an attribute) as a named statement: planned
// once per connection instead of on every change (its planning cost about as much as its execution).
const oneChange = perDb((db) =>
  prepareRaw(
    db,
    'consent_change_one',
    sql`WITH bumped AS (UPDATE consent_records SET version = version + 1
        WHERE id = ${ph('recordId')}::uuid AND version = ${ph('version')}::bigint RETURNING id),
      stored AS (
        ${UPSERT_CONSENT}
        SELECT ${ph('recordId')}::uuid, ${ph('purposeId')}::uuid, ${ph('attributeId')}::uuid, ${ph('userId')}::uuid,
          ${ph('value')}::text, ${ph('days')}::int, ${ph('decidedAt')}::timestamptz, ${ph('expiresAt')}::timestamptz
        WHERE EXISTS (SELECT 1 FROM bumped)
        ${ON_CONFLICT}
      ),
      ${queuedEventsSql(valuesSource(EVENT_PLACEHOLDERS, sql`WHERE EXISTS (SELECT 1 FROM bumped)`))}
      RETURNING 1 AS written`,
  ),
);

/**
 * Stores attribute consents (insert or replace) and writes their events, unsealed, in one
 * statement (see `appendEvents` for what sealing adds later).
 *
 * Two ways to call it:
 * - holding the record's lock (`lockAndReadConsents`), without `readVersion`: it writes;
 * - on its own, with the `version` the record had when the change's old values were read
 *   (`readRecordView`): the statement first bumps the version if it is still that, which takes the
 *   record's row lock, and writes only if it did. A concurrent change bumped it first, or the
 *   statement waited for its lock and then found the version moved (PostgreSQL re-reads a row it
 *   waited for), so the old values may be stale and nothing is written. Every writer of a record's
 *   consents bumps the version under that lock (`lockRecord`), so an unchanged version means
 *   unchanged consents. One round trip instead of five (BEGIN, lock, read, write, COMMIT).
 * @param orgId - the organisation whose chain the events join.
 * @param readVersion - the record's version as read, or undefined when the caller holds the lock.
 * @returns false when `readVersion` no longer holds (nothing was written); true otherwise.
 */
export async function writeChange(
  tx: Executor,
  orgId: string,
  rows: ConsentWrite[],
  events: EventDraft[],
  readVersion?: number,
): Promise<boolean> {
  if (rows.length === 0) return true;
  const consents = sql.join(
    rows.map(
      (r) =>
        sql`(${r.recordId}::uuid, ${r.purposeId}::uuid, ${r.attributeId}::uuid, ${r.userId}::uuid, ${r.value},
          ${r.days}::int, ${r.decidedAt.toISOString()}::timestamptz,
          ${r.expiresAt?.toISOString() ?? null}::timestamptz)`,
    ),
    sql`, `,
  );
  const guarded = readVersion !== undefined;
  const bump = guarded
    ? sql`bumped AS (UPDATE consent_records SET version = version + 1
        WHERE id = ${rows[0]!.recordId}::uuid AND version = ${readVersion}::bigint RETURNING id), `
    : sql``;
  const only = guarded ? sql`WHERE EXISTS (SELECT 1 FROM bumped)` : sql``;
  const result = await tx.execute(sql`
    WITH ${bump}stored AS (
      ${UPSERT_CONSENT} SELECT * FROM (VALUES ${consents}) AS v ${only}
      ${ON_CONFLICT}
    ),
    ${queuedEventsSql(valuesSource(eventRows(orgId, events), only))} RETURNING 1 AS written`);
  return rowsOf(result).length > 0;
}

/**
 * `writeChange` with a read version, on its own (not in a transaction): the optimistic write of a
 * change. A change of exactly one attribute (every attribute PATCH) runs as one named statement,
 * planned once per connection; others as `writeChange`'s statement.
 * @param db - the root handle.
 * @param orgId - the organisation whose chain the events join.
 * @param readVersion - the record's version when the change's old values were read.
 * @returns false when `readVersion` no longer holds (nothing was written); true otherwise.
 */
export async function writeChangeIfUnchanged(
  db: Db,
  orgId: string,
  rows: ConsentWrite[],
  events: EventDraft[],
  readVersion: number,
): Promise<boolean> {
  const [row, event] = [rows[0], events[0]];
  if (rows.length !== 1 || events.length !== 1 || !row || !event)
    return writeChange(db, orgId, rows, events, readVersion);
  const result = await oneChange(db).execute({
    recordId: row.recordId,
    version: readVersion,
    purposeId: row.purposeId,
    attributeId: row.attributeId,
    userId: row.userId,
    value: row.value,
    days: row.days,
    decidedAt: row.decidedAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    ...eventParams(orgId, event),
  });
  return rowsOf(result).length > 0;
}

/** An optimistic change of one record, for `writeChangesIfUnchanged`. */
export interface OptimisticWrite {
  /** The organisation whose chain the events join. */
  orgId: string;
  /** The record's version when the change's old values were read. */
  readVersion: number;
  /** The consents to store, all of one record. */
  rows: ConsentWrite[];
  /** Their events, in order. */
  events: EventDraft[];
}

/**
 * `writeChangeIfUnchanged` for several records in one statement, hence one commit: the group commit
 * of `GroupCommit`. Each change is written, consents and events together, only if its record's
 * version is still the one read, exactly as `writeChange` decides it for one record; the others
 * write nothing. The changes must be of distinct records, or all but one of a record's fail.
 * Events are written in array order (their `written`), so one record's events keep their order.
 * @param writes - at least one change, each of one record.
 * @returns per change, in order: whether it was written (false: its version no longer held).
 * @throws the database error when the statement fails; then nothing of any change was written.
 */
export async function writeChangesIfUnchanged(db: Db, writes: OptimisticWrite[]): Promise<boolean[]> {
  const changes = JSON.stringify(writes.map((w, i) => ({ i, record_id: w.rows[0]?.recordId, version: w.readVersion })));
  const consents = JSON.stringify(writes.flatMap((w, i) => w.rows.map((r) => ({ i, ...consentRecord(r) }))));
  let n = 0;
  const events = JSON.stringify(writes.flatMap((w, i) => w.events.map((e) => eventRecord(w.orgId, e, n++, i))));
  const result = await db.execute(sql`
    WITH w AS (SELECT * FROM json_to_recordset(${changes}::json) AS w(i int, record_id uuid, version bigint)),
    bumped AS (UPDATE consent_records r SET version = r.version + 1
      FROM w WHERE r.id = w.record_id AND r.version = w.version RETURNING w.i),
    stored AS (
      ${UPSERT_CONSENT}
      SELECT c.record_id, c.purpose_id, c.attribute_id, c.user_id, c.value, c.days, c.decided_at, c.expires_at
      FROM json_to_recordset(${consents}::json) AS c(i int, record_id uuid, purpose_id uuid, attribute_id uuid,
        user_id uuid, value text, days int, decided_at timestamptz, expires_at timestamptz)
      WHERE c.i IN (SELECT i FROM bumped)
      ${ON_CONFLICT}
    ),
    ${queuedEventsSql(recordsetSource(events, sql`e.change IN (SELECT i FROM bumped)`), 'queued')}
    SELECT i FROM bumped`);
  const written = new Set(rowsOf<{ i: number }>(result).map((r) => r.i));
  return writes.map((_, i) => written.has(i));
}

/** A consent as a record of `writeChangesIfUnchanged`'s JSON. */
function consentRecord(r: ConsentWrite) {
  return {
    record_id: r.recordId,
    purpose_id: r.purposeId,
    attribute_id: r.attributeId,
    user_id: r.userId,
    value: r.value,
    days: r.days,
    decided_at: r.decidedAt.toISOString(),
    expires_at: r.expiresAt?.toISOString() ?? null,
  };
}
