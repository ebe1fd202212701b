/**
 * SQL of the privacy dashboard's "My consents" read (docs/web.md "Privacy dashboard"): every consent record of the
 * organisations an individual is subscribed to, with the organisation's name, in one named statement for several
 * individuals at once, so that the page costs one round trip, shared under load (as `consent_record_views` is,
 * docs/decisions/0007-consent-read-and-write-path.md). Each row is the head and consents of `read-store.ts` for one
 * subscription, read as the individual themself.
 */
import { sql } from 'drizzle-orm';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Db, perDb, prepareRaw, rowsOf } from '../../platform/db/open.js';
import { consentsSql, headSql, type ViewRow } from './read-store.js';

/** One subscription's row: the record's head and consents (`ViewRow`) and the organisation's name. */
export interface OwnViewRow extends ViewRow {
  org_name: string;
}

/**
 * Per key `i` (from 1), one row per subscription of that individual, in organisation ID order (the order of the
 * User record's `Orgs`, src/identity/users/store.ts).
 */
const ownStatement = perDb((db) =>
  prepareRaw(
    db,
    'consent_own_record_views',
    sql`
    SELECT k.i, o.name AS org_name, head.*, ${consentsSql(sql``)} AS consents
    FROM unnest(${sql.placeholder('userIds')}::uuid[]) WITH ORDINALITY AS k(user_id, i)
    JOIN subscriptions s ON s.user_id = k.user_id
    JOIN organisations o ON o.id = s.org_id
    CROSS JOIN LATERAL (${headSql(sql`s.org_id`, sql`k.user_id`, sql`k.user_id`)}) AS head
    ORDER BY k.i, s.org_id`,
  ),
);

/**
 * The subscribed organisations' rows of several individuals in one statement.
 * @param db - the root handle (the statement is prepared per pooled connection).
 * @param userIds - UUIDs, already checked.
 * @returns per individual, in order, its rows (empty when it has no subscription).
 */
export async function ownViewRows(db: Db, userIds: string[]): Promise<OwnViewRow[][]> {
  const rows = rowsOf<OwnViewRow & { i: string | number }>(
    await ownStatement(db).execute({ userIds: arrayLiteral(userIds) }),
  );
  const out: OwnViewRow[][] = userIds.map(() => []);
  for (const row of rows) out[Number(row.i) - 1]!.push(row);
  return out;
}
