/**
 * SQL of the read side of a consent record: one prepared statement answers everything the four read operations
 * of docs/api.md "Permissions and consents" need (the caller's roles, the record, the subscription, the retention setting, the record's
 * stored consents and the organisation's `catalogue_version`), so that a read costs one round trip
 * (docs/decisions/0007-consent-read-and-write-path.md "Benchmark"). The purposes and data attributes
 * themselves come from the per-process `CatalogueCache`, checked against that version: a stale copy is
 * reloaded, never used. The head is MATERIALIZED so that its subqueries run once. Under load, reads that wait
 * for a statement share one (`viewRows`, for `RecordViews` in src/consent/records/reads.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import { rolesSql } from '../../organisations/index.js';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Db, perDb, prepareRaw, rowsOf } from '../../platform/db/open.js';
import type { CatalogueCache } from '../catalogue/cache.js';
import type { Catalogue } from '../catalogue/store.js';
import { type ConsentValue, defaultConsent, type StoredConsent } from '../model/values.js';
import type { RetentionRow } from '../retention/service.js';
import type { PurposeState } from './present.js';
import type { RecordRow } from './store.js';

/** What a read of one consent record sees. */
export interface RecordView {
  /** The caller's roles in the organisation (RoleIDs). */
  roles: number[];
  /** The record of (organisation, individual), or null when there never was one. */
  record: RecordRow | null;
  retention: RetentionRow;
  /**
   * The record's purposes in creation order, each with its
   * attributes' consents (defaults applied); empty without a record.
   */
  states: PurposeState[];
}

const ph = sql.placeholder;

/**
 * The statement, for the whole record or for one purpose. Two statements rather than one with
 * `($4 IS NULL OR c.purpose_id = $4)`, which PostgreSQL would re-plan on every execution; each of
 * these gets its generic plan after five executions. The consents come as one JSON array of
 * `[purpose, attribute, value, days, decided_at in epoch milliseconds]` (one row, parsed natively,
 * instead of a row each; a number, since V8 parses PostgreSQL's timestamp text slowly).
 */
function viewSql(onePurpose: boolean) {
  return sql`
    WITH head AS MATERIALIZED (${headSql(
      sql`${ph('orgId')}::uuid`,
      sql`${ph('userId')}::uuid`,
      sql`${ph('principalId')}::uuid`,
    )})
    SELECT head.*, ${consentsSql(onePurpose ? sql`AND c.purpose_id = ${ph('purposeId')}::uuid` : sql``)} AS consents
    FROM head`;
}

/**
 * The head of one key: the organisation's retention and catalogue version,
 * the caller's roles, the record, the subscription (also the individual's own records, `own-store.ts`).
 */
export function headSql(orgId: SQL, userId: SQL, principalId: SQL): SQL {
  return sql`
      SELECT o.id AS org_id, o.retention_enabled, o.retention_period_seconds, o.catalogue_version,
        ${rolesSql(sql`o.id`, principalId)} AS roles,
        r.id AS record_id, r.created_at AS record_created_at, r.version AS record_version,
        EXISTS (SELECT 1 FROM subscriptions s WHERE s.org_id = o.id AND s.user_id = ${userId}) AS subscribed
      FROM organisations o
      LEFT JOIN consent_records r ON r.org_id = o.id AND r.user_id = ${userId}
      WHERE o.id = ${orgId}`;
}

/** The stored consents of `head`'s record (restricted by `purposeFilter`) as one JSON array of tuples. */
export function consentsSql(purposeFilter: SQL): SQL {
  return sql`(SELECT json_agg(json_build_array(c.purpose_id, c.attribute_id, c.value, c.days,
           floor(extract(epoch FROM c.decided_at) * 1000)))
         FROM attribute_consents c WHERE c.record_id = head.record_id ${purposeFilter})`;
}

const recordStatement = perDb((db) => prepareRaw(db, 'consent_record_view', viewSql(false)));
const purposeStatement = perDb((db) => prepareRaw(db, 'consent_purpose_view', viewSql(true)));

/**
 * The same reads for several (organisation, individual, caller, purpose) keys in one statement,
 * one row per key that names an existing organisation, tagged with the key's position `i` (from
 * 1). A null purpose reads the whole record. The head of each key is the single statement's head,
 * run per key through a LATERAL join.
 */
const batchStatement = perDb((db) =>
  prepareRaw(
    db,
    'consent_record_views',
    sql`
    SELECT k.i, head.*, ${consentsSql(sql`AND (k.purpose_id IS NULL OR c.purpose_id = k.purpose_id)`)} AS consents
    FROM unnest(${ph('orgIds')}::uuid[], ${ph('userIds')}::uuid[], ${ph('principalIds')}::uuid[],
        ${ph('purposeIds')}::uuid[])
      WITH ORDINALITY AS k(org_id, user_id, principal_id, purpose_id, i)
    CROSS JOIN LATERAL (${headSql(sql`k.org_id`, sql`k.user_id`, sql`k.principal_id`)}) AS head`,
  ),
);

/** The IDs of one record read: UUIDs, already checked; `purposeId` null reads every purpose. */
export interface ViewIds {
  orgId: string;
  userId: string;
  principalId: string;
  purposeId: string | null;
}

/** What the read statements answer for one key (`recordViewOf` turns it into a `RecordView`). */
export interface ViewRow {
  org_id: string;
  retention_enabled: boolean;
  retention_period_seconds: string | number;
  catalogue_version: string | number;
  roles: Array<number | string>;
  record_id: string | null;
  record_created_at: string | Date | null;
  record_version: string | number | null;
  subscribed: boolean;
  /** `[purposeId, attributeId, value, days, decidedAt]` tuples, or null when none is stored. */
  consents: Array<[string, string, ConsentValue, number, number]> | string | null;
}

/**
 * Reads one key's row in one named statement.
 * @param db - the root handle (the statement is prepared per pooled connection).
 * @returns null when the organisation does not exist.
 */
export async function viewRow(db: Db, ids: ViewIds): Promise<ViewRow | null> {
  const statement = ids.purposeId === null ? recordStatement(db) : purposeStatement(db);
  return rowsOf<ViewRow>(await statement.execute({ ...ids }))[0] ?? null;
}

/**
 * Reads several keys' rows in one named statement (the batches of `RecordViews`).
 * @param db - the root handle.
 * @returns per key, in order, its row or null when its organisation does not exist.
 */
export async function viewRows(db: Db, keys: ViewIds[]): Promise<Array<ViewRow | null>> {
  const rows = rowsOf<ViewRow & { i: string | number }>(
    await batchStatement(db).execute({
      orgIds: arrayLiteral(keys.map((k) => k.orgId)),
      userIds: arrayLiteral(keys.map((k) => k.userId)),
      principalIds: arrayLiteral(keys.map((k) => k.principalId)),
      purposeIds: arrayLiteral(keys.map((k) => k.purposeId)),
    }),
  );
  const byPosition = new Map(rows.map((r) => [Number(r.i), r]));
  return keys.map((_, i) => byPosition.get(i + 1) ?? null);
}

/**
 * Turns a key's row into the `RecordView` its read operations need, with the organisation's
 * purposes and data attributes from `catalogues`: the cached copy when it is at least the version
 * the statement saw, else one loaded after the statement (so at least as new). A copy newer than
 * the statement's snapshot is as good as its own: only changes of the catalogue made while this
 * request ran can differ, and the request overlapped them.
 * @param catalogues - the cached catalogues.
 * @param head - the key's row (`viewRow`/`viewRows`), or null.
 * @param ids - the key.
 * @returns null when the organisation does not exist.
 */
export async function recordViewOf(
  catalogues: CatalogueCache,
  head: ViewRow | null,
  ids: ViewIds,
): Promise<RecordView | null> {
  if (!head) return null;
  const cached = catalogues.peek(ids.orgId);
  const catalogue =
    cached && cached.version >= Number(head.catalogue_version) ? cached : await catalogues.load(ids.orgId);
  return catalogue ? toView(head, catalogue, ids) : null;
}

function toView(head: ViewRow, catalogue: Catalogue, ids: { userId: string; purposeId: string | null }): RecordView {
  const record = head.record_id
    ? {
        id: head.record_id,
        orgId: head.org_id,
        userId: ids.userId,
        createdAt: new Date(head.record_created_at as string),
        subscribed: head.subscribed,
        version: Number(head.record_version),
      }
    : null;
  return {
    roles: head.roles.map(Number),
    record,
    retention: { enabled: head.retention_enabled, periodSeconds: Number(head.retention_period_seconds) },
    states: record ? purposeStates(catalogue, head.consents, ids.purposeId, record.createdAt) : [],
  };
}

/**
 * The record's purposes (all, or `purposeId`'s) from the catalogue, each attribute with its stored
 * consent or, when none is stored, the default of the purpose's lawful basis (docs/api.md "Defaults").
 */
function purposeStates(
  catalogue: Catalogue,
  consents: ViewRow['consents'],
  purposeId: string | null,
  recordCreatedAt: Date,
): PurposeState[] {
  const tuples: Exclude<ViewRow['consents'], string> = typeof consents === 'string' ? JSON.parse(consents) : consents;
  const stored = new Map<string, [string, string, ConsentValue, number, number]>();
  for (const t of tuples ?? []) stored.set(t[0] + t[1], t);
  const purposes =
    purposeId === null ? catalogue.purposes : [catalogue.byId.get(purposeId)].filter((p) => p !== undefined);
  return purposes.map((p) => ({
    purpose: { id: p.id, name: p.name, description: p.description, lawfulUsage: p.lawfulUsage, policyUrl: p.policyUrl },
    attributes: p.attributes.map((a) => {
      const c = stored.get(p.id + a.id);
      const consent: StoredConsent = c
        ? { value: c[2], days: c[3], decidedAt: new Date(c[4]), isDefault: false }
        : defaultConsent(p.lawfulUsage, recordCreatedAt);
      return { id: a.id, name: a.name, consent };
    }),
  }));
}
