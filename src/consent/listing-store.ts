/**
 * SQL of the consented-user pages (SPEC 4.3; issue #3 "Listings"). Each is a keyset in user-ID
 * order over an index, so a page costs O(limit) at any depth: never an offset, never a query per user.
 * Only users subscribed now are listed.
 */
import { sql, type SQL } from 'drizzle-orm';
import { type Db, type Executor, perDb, prepareRaw, rowsOf } from '../db/open.js';
import type { IndividualRow } from '../individuals/store.js';

/** What a page asks for. */
export interface ListingQuery {
  orgId: string;
  purposeId: string;
  /** The purpose's live attributes (the page's whole set for a purpose, one for an attribute). */
  attributeIds: string[];
  lawfulUsage: boolean;
  /** Exclusive start (a user ID), or undefined for the first page. */
  after: string | undefined;
  /** Rows to read (count). */
  limit: number;
}

const purposeStatement = perDb((db) =>
  prepareRaw(
    db,
    'listing_purpose',
    sql`SELECT p.lawful_usage,
        ARRAY(SELECT a.id FROM purpose_attributes pa JOIN data_attributes a ON a.id = pa.attribute_id AND a.deleted_at IS NULL
              WHERE pa.purpose_id = p.id AND pa.unlinked_at IS NULL ORDER BY pa.created_at, a.id) AS attribute_ids
      FROM purposes p WHERE p.id = ${sql.placeholder('purposeId')}::uuid AND p.org_id = ${sql.placeholder('orgId')}::uuid AND p.deleted_at IS NULL`,
  ),
);

/**
 * A live purpose of the organisation with the IDs of its live data attributes (links not removed,
 * attributes not deleted) in link order; one prepared statement.
 * @param db - the root handle.
 * @param orgId - a well-formed organisation ID.
 * @param purposeId - a well-formed purpose ID.
 * @returns null when the purpose is not the organisation's or was deleted.
 */
export async function listingPurpose(db: Db, orgId: string, purposeId: string): Promise<{ lawfulUsage: boolean; attributeIds: string[] } | null> {
  const [row] = rowsOf<{ lawful_usage: boolean; attribute_ids: string[] }>(await purposeStatement(db).execute({ orgId, purposeId }));
  return row ? { lawfulUsage: row.lawful_usage, attributeIds: row.attribute_ids } : null;
}

/** A stored consent that does not count at `now()`: Disallow, or an AskMe that ran out. */
const NOT_COUNTING = sql`(c.value = 'Disallow' OR (c.value = 'AskMe' AND c.expires_at <= now()))`;
const COUNTING = sql`c.value <> 'Disallow' AND (c.expires_at IS NULL OR c.expires_at > now())`;

async function usersOf(db: Executor, ids: SQL): Promise<IndividualRow[]> {
  const result = await db.execute(sql`
    SELECT u.id, u.name, u.email, u.phone FROM (${ids}) AS page JOIN users u ON u.id = page.user_id ORDER BY u.id`);
  return rowsOf<IndividualRow>(result);
}

/**
 * Users for whom at least one of `attributeIds` counts as consented.
 * - Consent-based purpose: users with a counting row (the `attribute_consents_consenting` /
 *   `attribute_consents_purpose_user` partial indexes, in user order).
 * - Lawful-basis purpose: every subscribed user (the `subscriptions_org_user` index) unless every
 *   one of the attributes is stored as not counting.
 */
export async function consentedUsers(db: Executor, q: ListingQuery): Promise<IndividualRow[]> {
  if (q.attributeIds.length === 0) return [];
  const after = q.after === undefined ? sql`` : sql`AND s.user_id > ${q.after}`;
  if (q.lawfulUsage) {
    return usersOf(
      db,
      sql`SELECT s.user_id FROM subscriptions s
        WHERE s.org_id = ${q.orgId} ${after}
          AND (SELECT count(*) FROM attribute_consents c
               WHERE c.purpose_id = ${q.purposeId} AND c.user_id = s.user_id AND c.attribute_id IN ${q.attributeIds} AND ${NOT_COUNTING}) < ${q.attributeIds.length}
        ORDER BY s.user_id LIMIT ${q.limit}`,
    );
  }
  const afterC = q.after === undefined ? sql`` : sql`AND c.user_id > ${q.after}`;
  // The same bound on the subscriptions side: PostgreSQL does not carry an inequality across the
  // join's equality, and a merge join would otherwise read the organisation's subscriptions from
  // its first user up to the page (O(depth); seen in bench/consents.mjs on small organisations).
  const afterS = q.after === undefined ? sql`` : sql`AND s.user_id > ${q.after}`;
  const attribute = q.attributeIds.length === 1 ? sql`c.attribute_id = ${q.attributeIds[0]}` : sql`c.attribute_id IN ${q.attributeIds}`;
  return usersOf(
    db,
    sql`SELECT DISTINCT c.user_id FROM attribute_consents c
      JOIN subscriptions s ON s.org_id = ${q.orgId} AND s.user_id = c.user_id ${afterS}
      WHERE c.purpose_id = ${q.purposeId} AND ${attribute} AND ${COUNTING} ${afterC}
      ORDER BY c.user_id LIMIT ${q.limit}`,
  );
}
