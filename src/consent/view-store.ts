/**
 * SQL of the read side of a consent record: one prepared statement answers everything the four
 * read operations of SPEC 4.3 need (the caller's roles, the record, the subscription, the retention
 * setting and the consents), so that a read costs one round trip (issue #3 "Benchmark"). The head
 * is MATERIALIZED so that its subqueries run once, not once per attribute row.
 */
import { sql } from 'drizzle-orm';
import { type Db, perDb, prepareRaw, rowsOf } from '../db/open.js';
import { rolesSql } from '../orgs/store.js';
import type { RetentionRow } from '../retention/store.js';
import type { ConsentRow, RecordRow } from './store.js';
import type { ConsentValue } from './values.js';

/** What a read of one consent record sees. */
export interface RecordView {
  /** The caller's roles in the organisation (RoleIDs). */
  roles: number[];
  /** The record of (organisation, individual), or null when there never was one. */
  record: RecordRow | null;
  retention: RetentionRow;
  /** One row per (purpose, attribute) in purpose, then attribute order; a purpose without attributes has one row with a null attribute. */
  rows: ConsentRow[];
}

const ph = sql.placeholder;

/**
 * The statement, for the whole record or for one purpose. Two statements rather than one with
 * `($4 IS NULL OR p.id = $4)`: with that, PostgreSQL kept re-planning it on every execution (0.8 ms
 * of planning for 0.2 ms of work), while each of these gets its generic plan after five executions.
 */
function viewSql(onePurpose: boolean) {
  return sql`
    WITH head AS MATERIALIZED (
      SELECT o.id AS org_id, o.retention_enabled, o.retention_period_seconds,
        ${rolesSql(sql`o.id`, sql`${ph('principalId')}::uuid`)} AS roles,
        r.id AS record_id, r.created_at AS record_created_at, r.version AS record_version,
        EXISTS (SELECT 1 FROM subscriptions s WHERE s.org_id = o.id AND s.user_id = ${ph('userId')}::uuid) AS subscribed
      FROM organisations o
      LEFT JOIN consent_records r ON r.org_id = o.id AND r.user_id = ${ph('userId')}::uuid
      WHERE o.id = ${ph('orgId')}::uuid
    )
    SELECT head.*, p.id AS purpose_id, p.name AS purpose_name, p.description AS purpose_description,
      p.lawful_usage, p.policy_url, a.id AS attribute_id, a.name AS attribute_name, c.value, c.days, c.decided_at
    FROM head
    LEFT JOIN purposes p ON head.record_id IS NOT NULL AND p.org_id = head.org_id AND p.deleted_at IS NULL
      ${onePurpose ? sql`AND p.id = ${ph('purposeId')}::uuid` : sql``}
    LEFT JOIN purpose_attributes pa ON pa.purpose_id = p.id AND pa.unlinked_at IS NULL
    LEFT JOIN data_attributes a ON a.id = pa.attribute_id AND a.deleted_at IS NULL
    LEFT JOIN attribute_consents c ON c.record_id = head.record_id AND c.purpose_id = p.id AND c.attribute_id = a.id
    ORDER BY p.created_at, p.id, pa.created_at, a.id`;
}

const recordStatement = perDb((db) => prepareRaw(db, 'consent_record_view', viewSql(false)));
const purposeStatement = perDb((db) => prepareRaw(db, 'consent_purpose_view', viewSql(true)));

interface ViewRow {
  org_id: string;
  retention_enabled: boolean;
  retention_period_seconds: string | number;
  roles: Array<number | string>;
  record_id: string | null;
  record_created_at: string | Date | null;
  record_version: string | number | null;
  subscribed: boolean;
  purpose_id: string | null;
  purpose_name: string;
  purpose_description: string;
  lawful_usage: boolean;
  policy_url: string;
  attribute_id: string | null;
  attribute_name: string | null;
  value: string | null;
  days: number | null;
  decided_at: string | Date | null;
}

/**
 * Reads one consent record as its read operations need it, in one prepared statement.
 * @param db - the root handle (the statement is prepared per pooled connection).
 * @param ids - UUIDs, already checked: the path's organisation and individual, the caller, and the
 *   purpose to restrict to (null for all).
 * @returns null when the organisation does not exist.
 */
export async function readRecordView(db: Db, ids: { orgId: string; userId: string; principalId: string; purposeId: string | null }): Promise<RecordView | null> {
  const statement = ids.purposeId === null ? recordStatement(db) : purposeStatement(db);
  const rows = rowsOf<ViewRow>(await statement.execute(ids));
  const head = rows[0];
  if (!head) return null;
  const record = head.record_id
    ? { id: head.record_id, orgId: head.org_id, userId: ids.userId, createdAt: new Date(head.record_created_at as string), subscribed: head.subscribed, version: Number(head.record_version) }
    : null;
  return {
    roles: head.roles.map(Number),
    record,
    retention: { enabled: head.retention_enabled, periodSeconds: Number(head.retention_period_seconds) },
    // A LEFT JOIN that found no purpose leaves one row with a null purpose: no purposes at all.
    rows: rows.filter((r) => r.purpose_id !== null).map(toConsentRow),
  };
}

function toConsentRow(r: ViewRow): ConsentRow {
  return {
    purposeId: r.purpose_id as string,
    purposeName: r.purpose_name,
    purposeDescription: r.purpose_description,
    lawfulUsage: r.lawful_usage,
    policyUrl: r.policy_url,
    attributeId: r.attribute_id,
    attributeName: r.attribute_name,
    value: r.value as ConsentValue | null,
    days: r.days,
    decidedAt: r.decided_at === null ? null : new Date(r.decided_at),
  };
}
