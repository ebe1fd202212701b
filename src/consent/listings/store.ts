/**
 * SQL of the consented-user pages (docs/api.md "Permissions and consents"; docs/decisions/0008-consent-records-and-catalogue.md "Listings"). Each is
 * a keyset in user-ID order over an index, so a page costs O(limit) at any depth: never an offset, never a query per
 * user. Only users subscribed now are listed.
 */

import { type SQL, sql } from 'drizzle-orm';
import type { IndividualRow } from '../../organisations/index.js';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Db, type PreparedRaw, perDb, prepareRaw, rowsOf } from '../../platform/db/open.js';
import { COUNTING } from '../model/counting.js';

/** What a page asks for. */
export interface ListingQuery {
  orgId: string;
  /** The `catalogue_version` that `attributeIds` and `lawfulUsage` were read at. */
  catalogueVersion: number;
  purposeId: string;
  /** The purpose's live attributes (the page's whole set for a purpose, one for an attribute). */
  attributeIds: string[];
  lawfulUsage: boolean;
  /** Exclusive start (a user ID), or undefined for the first page. */
  after: string | undefined;
  /** Rows to read (count). */
  limit: number;
}

/**
 * How many of a user's stored consents `s.user_id` to the purpose's `attributeIds` do not count at
 * `now()`: the Disallow ones plus the AskMe ones that ran out. One index-only probe of
 * `attribute_consents_not_allowed` per user, whose keys hold every column read here (a lawful page
 * 4515-4570 -> 5730-6115 pages/s with pgbench and generic plans at 1M individuals, against two
 * probes: one of the Disallow rows, one with heap fetches of the AskMe rows).
 */
const NOT_COUNTING_COUNT = sql`(SELECT count(*) FROM attribute_consents c
    WHERE c.purpose_id = ${sql.placeholder('purposeId')}::uuid AND c.user_id = s.user_id AND c.value <> 'Allow'
      AND (c.value = 'Disallow' OR c.expires_at <= now())
      AND c.attribute_id = ANY(${sql.placeholder('attributeIds')}::uuid[]))`;
const ph = sql.placeholder;

/**
 * The shapes of the page statement: lawful basis or consent (one attribute,
 * or the purpose's), first page or after a user.
 */
interface Shape {
  lawful: boolean;
  single: boolean;
  after: boolean;
}

/**
 * The page statement of one shape.
 * - Consent-based purpose: users with a counting row (the `attribute_consents_consenting` /
 *   `attribute_consents_purpose_user` partial indexes, in user order).
 * - Lawful-basis purpose: every subscribed user (the `subscriptions_org_user` index) unless every
 *   one of the attributes is stored as not counting.
 */
function pageSql({ lawful, single, after }: Shape): SQL {
  // Nothing is listed unless the catalogue the parameters came from is still current (a one-time
  // filter on the organisation's row); the caller then reloads it and asks again.
  const current = sql`o.catalogue_version = ${ph('version')}::bigint`;
  const afterS = after ? sql`AND s.user_id > ${ph('after')}::uuid` : sql``;
  const attributes = single
    ? sql`c.attribute_id = ${ph('attributeId')}::uuid`
    : sql`c.attribute_id = ANY(${ph('attributeIds')}::uuid[])`;
  const ids = lawful
    ? sql`SELECT s.user_id FROM subscriptions s
        WHERE ${current} AND s.org_id = ${ph('orgId')}::uuid ${afterS}
          AND ${NOT_COUNTING_COUNT} < ${ph('count')}::int
        ORDER BY s.user_id LIMIT ${ph('limit')}::int`
    : // The bound on both sides of the join: PostgreSQL does not carry an inequality across the join's
      // equality, and a merge join would otherwise read the organisation's subscriptions from its
      // first user up to the page (O(depth); seen in bench/consents.mjs on small organisations).
      sql`SELECT DISTINCT c.user_id FROM attribute_consents c
        JOIN subscriptions s ON s.org_id = ${ph('orgId')}::uuid AND s.user_id = c.user_id ${afterS}
        WHERE ${current} AND c.purpose_id = ${ph('purposeId')}::uuid
          AND ${attributes}
          AND ${COUNTING} ${after ? sql`AND c.user_id > ${ph('after')}::uuid` : sql``}
        ORDER BY c.user_id LIMIT ${ph('limit')}::int`;
  // LATERAL: one primary-key probe per listed user. A named statement's generic plan does not know the
  // LIMIT, and with a plain join it read the whole users table (a hash join) for each page; the
  // inner LIMIT keeps the planner from flattening the LATERAL back into that join.
  // The organisation's row comes first, with its catalogue_version, so that a stale catalogue is told
  // from an empty page in the same round trip.
  return sql`SELECT o.catalogue_version, u.id, u.name, u.email, u.phone FROM organisations o
    LEFT JOIN LATERAL (SELECT u.id, u.name, u.email, u.phone FROM (${ids}) AS page
      CROSS JOIN LATERAL (SELECT id, name, email, phone FROM users WHERE id = page.user_id LIMIT 1) AS u) AS u ON true
    WHERE o.id = ${ph('orgId')}::uuid ORDER BY u.id`;
}

// Named statements, one per shape: planning this join cost 1 to 2 ms on every call, three times its
// execution. On `statementHandle`'s pool a named statement runs its generic plan, planned once per
// connection (PostgreSQL's default mode re-planned it on every call: the generic plan does not know
// the LIMIT and is costed above the custom ones).
const pageStatements = perDb(() => new Map<string, PreparedRaw>());

function pageStatement(db: Db, shape: Shape): PreparedRaw {
  const kind = shape.lawful ? 'lawful' : shape.single ? 'attribute' : 'purpose';
  const name = `consented_users_${kind}${shape.after ? '_after' : ''}`;
  const statements = pageStatements(db);
  let statement = statements.get(name);
  if (!statement) {
    statement = prepareRaw(db, name, pageSql(shape));
    statements.set(name, statement);
  }
  return statement;
}

/**
 * Users for whom at least one of `attributeIds` counts as consented, in user-ID order, after
 * `q.after` (one named statement per shape; see `pageSql`).
 * @param db - the root handle.
 * @returns the users, or `stale` when the organisation's catalogue is no longer at
 *   `q.catalogueVersion` (nothing was listed), or null when the organisation does not exist.
 */
export async function consentedUsers(db: Db, q: ListingQuery): Promise<IndividualRow[] | 'stale' | null> {
  // No early answer for a purpose without attributes: the copy it came from may be stale, and the
  // statement, which lists nobody for an empty set, is also what tells.
  const shape = { lawful: q.lawfulUsage, single: q.attributeIds.length === 1, after: q.after !== undefined };
  const values = {
    orgId: q.orgId,
    purposeId: q.purposeId,
    attributeId: q.attributeIds[0],
    attributeIds: arrayLiteral(q.attributeIds),
    count: q.attributeIds.length,
    after: q.after,
    limit: q.limit,
    version: q.catalogueVersion,
  };
  const rows = rowsOf<IndividualRow & { catalogue_version: string | number; id: string | null }>(
    await pageStatement(db, shape).execute(values),
  );
  if (rows.length === 0) return null;
  if (Number(rows[0]!.catalogue_version) !== q.catalogueVersion) return 'stale';
  return rows
    .filter((r) => r.id !== null)
    .map(({ id, name, email, phone }) => ({ id: id as string, name, email, phone }));
}
