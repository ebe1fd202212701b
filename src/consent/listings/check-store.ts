/**
 * SQL of the bulk consent check (docs/api.md "Bulk consent check"; docs/consents.md "Bulk consent check"): the stored
 * consents of up to 1,000 individuals to some attributes of one purpose, whether each is subscribed, `now()` and the
 * organisation's consent-chain head, in one statement, hence one snapshot: never a query per individual.
 */
import { sql } from 'drizzle-orm';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Db, rowsOf } from '../../platform/db/open.js';
import type { ConsentValue } from '../model/values.js';

/** What a check reads. */
export interface CheckQuery {
  orgId: string;
  /** The `catalogue_version` that `purposeId` and `attributeIds` were read at. */
  catalogueVersion: number;
  purposeId: string;
  /** Live attributes of the purpose. */
  attributeIds: readonly string[];
  /** Well-formed, distinct user IDs (lower case). */
  userIds: readonly string[];
}

/** A stored attribute consent (its row of `attribute_consents`). */
export interface StoredCheckValue {
  attributeId: string;
  value: ConsentValue;
  /** days (0 = no time limit) */
  days: number;
  /** When it was decided (milliseconds since the epoch, UTC). */
  decidedAtMs: number;
}

/** What the snapshot holds of one individual. */
export interface CheckedIndividual {
  subscribed: boolean;
  /** Their stored consents to the asked attributes; an attribute absent here is undecided. */
  stored: StoredCheckValue[];
}

/** The snapshot a check reads. */
export interface CheckSnapshot {
  /** `now()`: the statement's instant. */
  at: Date;
  /** The chain head's `seq` (0 when the organisation has no sealed event). */
  seq: number;
  /** By user ID (lower case), one entry per asked user. */
  individuals: Map<string, CheckedIndividual>;
}

/**
 * Reads the snapshot of a check in one statement. The user IDs travel as one array and are unnested; each is one
 * probe of the `subscriptions` primary key, one of the record by organisation and user (`consent_records_org_user`, or
 * `consent_records_user` filtered by organisation: the planner takes either, a user has few records) and one range of
 * the `attribute_consents` primary key `(record_id, purpose_id, attribute_id)`. The key, not the partial indexes of the
 * consented-user pages, because a check reads every stored value, Disallow included, with its days and time, and
 * each partial index leaves out one value. An unsubscribed individual's record is not read. Times travel as numbers
 * (`date_part`, double precision: exact to the microsecond for these dates), cheaper to read than 1,000 timestamps;
 * `now()` too, which every row repeats (a timestamp column would be parsed into a Date once per row).
 * The chain head's subquery names the organisation by value, not by the outer row, so it runs once, not per row.
 * @returns the snapshot; `stale` when the organisation's catalogue is no longer at `q.catalogueVersion` (nothing is
 *   to be used); null when the organisation does not exist.
 */
export async function readCheck(db: Db, q: CheckQuery): Promise<CheckSnapshot | 'stale' | null> {
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`WITH ids AS (
        SELECT i.user_id FROM unnest(${arrayLiteral([...q.userIds])}::uuid[]) AS i(user_id)),
      found AS (
        SELECT i.user_id, r.id AS record_id, (s.user_id IS NOT NULL) AS subscribed
        FROM ids i
        LEFT JOIN subscriptions s ON s.org_id = ${q.orgId}::uuid AND s.user_id = i.user_id
        LEFT JOIN consent_records r ON s.user_id IS NOT NULL AND r.org_id = ${q.orgId}::uuid AND r.user_id = i.user_id)
      SELECT o.catalogue_version, date_part('epoch', now()) * 1000 AS at_ms,
        coalesce((SELECT h.seq FROM consent_chain_heads h WHERE h.org_id = ${q.orgId}::uuid), 0) AS seq,
        f.user_id, f.subscribed, c.attribute_id, c.value, c.days,
        date_part('epoch', c.decided_at) * 1000 AS decided_ms
      FROM organisations o
      CROSS JOIN found f
      LEFT JOIN attribute_consents c ON c.record_id = f.record_id AND c.purpose_id = ${q.purposeId}::uuid
        AND c.attribute_id = ANY(${arrayLiteral([...q.attributeIds])}::uuid[])
      WHERE o.id = ${q.orgId}::uuid`),
  );
  if (rows.length === 0) return null;
  if (Number(rows[0]!.catalogue_version) !== q.catalogueVersion) return 'stale';
  const individuals = new Map<string, CheckedIndividual>();
  for (const r of rows) {
    const id = String(r.user_id);
    let one = individuals.get(id);
    if (!one) {
      one = { subscribed: Boolean(r.subscribed), stored: [] };
      individuals.set(id, one);
    }
    if (r.attribute_id !== null)
      one.stored.push({
        attributeId: String(r.attribute_id),
        value: r.value as ConsentValue,
        days: Number(r.days),
        decidedAtMs: Number(r.decided_ms),
      });
  }
  return { at: new Date(Number(rows[0]!.at_ms)), seq: Number(rows[0]!.seq), individuals };
}
