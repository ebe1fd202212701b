/**
 * SQL of an organisation's consent overview and trend (docs/consents.md "Overview and trend";
 * docs/decisions/0021-consent-overview-and-trend.md). Both count the
 * population the consented-user pages list: individuals subscribed now, and the purposes and data attributes live now
 * (ISO/IEC TS 27560 "consent record"). Each is one statement, so that it reads one snapshot, of aggregates over
 * indexes: never a row per individual sent to the server.
 */
import { type SQL, sql } from 'drizzle-orm';
import { arrayLiteral } from '../../platform/db/arrays.js';
import { type Db, rowsOf } from '../../platform/db/open.js';

/**
 * What to count: the live (purpose, attribute) pairs of an organisation's catalogue, from the per-process cache, as of
 * one version; every statement here reads `catalogue_version` with its counts, and answers `stale` when it moved.
 */
export interface CountScope {
  orgId: string;
  /** The `catalogue_version` the pairs were read at; nothing is counted unless it is still current. */
  catalogueVersion: number;
  /** Live purposes with their live attributes (all of the catalogue's, or one purpose's). */
  purposes: ReadonlyArray<{ id: string; attributes: ReadonlyArray<{ id: string }> }>;
}

/** Counts of values (count each). */
export interface ValueCounts {
  allow: number;
  disallow: number;
  askMe: number;
}

/** One UTC day of a trend. */
export interface TrendDay {
  /** The day's start, 00:00 UTC. */
  day: Date;
  /** Events of the day whose new value is Allow, Disallow, AskMe. */
  changes: ValueCounts;
  /** Attribute consents that read Allow, Disallow, AskMe at the day's end (at `now()` for today). */
  totals: ValueCounts;
}

const num = (v: unknown) => Number(v ?? 0);

/**
 * CTE `live`: the scope's (purpose, attribute) pairs, from two arrays; and the purposes as one array, which bounds
 * the scans of `attribute_consents` so that the planner, seeing the values, reads an organisation's own rows through
 * the partial indexes that lead with the purpose (`attribute_consents_consenting`, every row but Disallow;
 * `attribute_consents_not_allowed`, every row but Allow) when it holds few rows, and the table when it holds most.
 */
function liveCte(scope: CountScope): { live: SQL; purposeIds: SQL } {
  const pairs = scope.purposes.flatMap((p) => p.attributes.map((a) => [p.id, a.id] as const));
  const live = sql`live AS (SELECT * FROM unnest(${arrayLiteral(pairs.map(([p]) => p))}::uuid[],
    ${arrayLiteral(pairs.map(([, a]) => a))}::uuid[]) AS l(purpose_id, attribute_id))`;
  return { live, purposeIds: sql`${arrayLiteral(scope.purposes.map((p) => p.id))}::uuid[]` };
}

/**
 * CTE `gone`: the organisation's consent records whose individual is not subscribed now (unsubscribed; a record is
 * kept for its evidence): an anti-join of the organisation's records and subscriptions. Counting everyone and taking
 * these few away is cheaper than a subscription check for every attribute consent (at 1,000,000 individuals, a hash
 * join of 5,000,000 consents with 1,000,000 subscriptions).
 */
const goneCte = (orgId: string) => sql`gone AS (
    SELECT r.id FROM consent_records r WHERE r.org_id = ${orgId}::uuid
      AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.org_id = r.org_id AND s.user_id = r.user_id))`;

/** Per (purpose, attribute) of the stored consents `c`: stored Allow, stored Disallow, lapsed and running AskMe. */
const VALUE_COUNTS = sql`count(*) FILTER (WHERE c.value = 'Allow') AS allow,
    count(*) FILTER (WHERE c.value = 'Disallow') AS disallow,
    count(*) FILTER (WHERE c.value = 'AskMe' AND c.expires_at <= now()) AS lapsed,
    count(*) FILTER (WHERE c.value = 'AskMe' AND (c.expires_at IS NULL OR c.expires_at > now())) AS askme`;

/**
 * CTEs `live`, `gone` and `counts` (per live pair: allow, disallow, askme at `now()`). The stored consents of the
 * scope's purposes are counted in one pass, everyone's, and those of `gone` records (primary-key probes) taken away.
 * An AskMe whose expiry is at or before `now()` reads Disallow, as in `COUNTING` (`consent/model/counting.ts`) and
 * `effectiveValue` (values.ts).
 */
function countsCtes(scope: CountScope): SQL {
  const { live, purposeIds } = liveCte(scope);
  return sql`${live},
    ${goneCte(scope.orgId)},
    stored AS (
      SELECT c.purpose_id, c.attribute_id, ${VALUE_COUNTS} FROM attribute_consents c
      WHERE c.purpose_id = ANY(${purposeIds}) AND (c.value <> 'Disallow' OR c.value <> 'Allow')
      GROUP BY c.purpose_id, c.attribute_id),
    unsubscribed AS (
      SELECT c.purpose_id, c.attribute_id, ${VALUE_COUNTS} FROM gone g JOIN attribute_consents c ON c.record_id = g.id
      WHERE c.purpose_id = ANY(${purposeIds})
      GROUP BY c.purpose_id, c.attribute_id),
    counts AS (
      SELECT l.purpose_id, l.attribute_id,
        coalesce(s.allow, 0) - coalesce(u.allow, 0) AS allow,
        coalesce(s.disallow, 0) + coalesce(s.lapsed, 0) - coalesce(u.disallow, 0) - coalesce(u.lapsed, 0) AS disallow,
        coalesce(s.askme, 0) - coalesce(u.askme, 0) AS askme
      FROM live l
      LEFT JOIN stored s ON s.purpose_id = l.purpose_id AND s.attribute_id = l.attribute_id
      LEFT JOIN unsubscribed u ON u.purpose_id = l.purpose_id AND u.attribute_id = l.attribute_id)`;
}

/** The organisation's row, with its catalogue version, so that a stale scope is told from an empty count. */
const orgRow = (orgId: string) => sql`SELECT catalogue_version FROM organisations WHERE id = ${orgId}::uuid`;

/**
 * The organisation's subscribed individuals and, per live pair of the scope, their stored consents at `now()`.
 * @returns null when the organisation does not exist, `stale` when its catalogue is no longer at
 *   `scope.catalogueVersion` (counts are then not to be used); else `at` (`now()`), `individuals` (subscriptions) and
 *   the counts keyed `purposeId/attributeId`.
 */
export async function overviewCounts(
  db: Db,
  scope: CountScope,
): Promise<{ at: Date; individuals: number; counts: Map<string, ValueCounts> } | 'stale' | null> {
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`WITH ${countsCtes(scope)},
      o AS (${orgRow(scope.orgId)}),
      subscribed AS (SELECT count(*) AS n FROM subscriptions WHERE org_id = ${scope.orgId}::uuid)
      SELECT o.catalogue_version, now() AS at, i.n AS individuals, c.*
      FROM o CROSS JOIN subscribed i LEFT JOIN counts c ON true`),
  );
  if (rows.length === 0) return null;
  if (num(rows[0]!.catalogue_version) !== scope.catalogueVersion) return 'stale';
  const counts = new Map<string, ValueCounts>();
  for (const r of rows)
    if (r.purpose_id !== null)
      counts.set(`${r.purpose_id}/${r.attribute_id}`, {
        allow: num(r.allow),
        disallow: num(r.disallow),
        askMe: num(r.askme),
      });
  return { at: new Date(rows[0]!.at as string | Date), individuals: num(rows[0]!.individuals), counts };
}

/**
 * The day index of instant `t` in the window: the first day whose end is at or after `t` (0 before the window);
 * `days` when after `now()`; null when `t` is. In double precision (`date_part`): `extract` answers numeric, several
 * times slower over millions of rows.
 */
const dayOf = (t: SQL, days: number) =>
  sql`CASE WHEN ${t} > b.now_at THEN ${days}::int WHEN ${t} < b.start_at THEN 0
    ELSE floor((date_part('epoch', ${t}) - b.start_epoch) / 86400)::int END`;

/**
 * The trend of the last `days` UTC days (today included) of the scope's live attributes.
 *
 * Changes: the window's events (`consent_events_org_time`) by their new value. Totals, per value at each day's end:
 * the counts of `overviewCounts` at `now()`, less the attribute consents touched in the window as they read now, plus
 * the same consents as they read at that day's end. A consent is touched by an event in the window, or by an AskMe
 * decided before it that ran out in it (read from its stored row). One with events is replayed from the last event
 * before the window (`consent_events_record_attribute`, one probe per consent) and its events in it, by the rule of
 * `?at=` (`stateAt`: the latest event, then the latest written); an AskMe with days reads Disallow from its expiry.
 * Every stored consent was written with its event (the changes and the AskMe sweep), so an untouched one read the
 * same all through the window. Cost: O(the window's events), plus the overview's count.
 * @param scope - the live pairs counted: every purpose's, or one purpose's.
 * @param days - 1..366 (days).
 * @returns `now()` and one entry per day, oldest first; null or `stale` as `overviewCounts`.
 */
export async function trendDays(
  db: Db,
  scope: CountScope,
  days: number,
): Promise<{ now: Date; days: TrendDay[] } | 'stale' | null> {
  const { orgId } = scope;
  // 00:00 UTC of the first day, written out where it bounds an index scan (the planner estimates it, not a CTE's value).
  const start = sql`((date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => ${days - 1}::int))
    AT TIME ZONE 'UTC')`;
  // The count at `now()`, less the touched consents as they read now (every delta up to today), plus as they read at
  // the end of day i (the deltas up to day i).
  const total = (v: 'allow' | 'disallow' | 'askme') =>
    sql.raw(`n.${v} - coalesce(sum(d.${v}) OVER (), 0) + coalesce(sum(d.${v}) OVER (ORDER BY g.i), 0)`);
  const values = (column: string, only = 'true') =>
    sql.raw(`sum(${column}) FILTER (WHERE ${only} AND m.value = 'Allow'),
      sum(${column}) FILTER (WHERE ${only} AND m.value = 'Disallow'),
      sum(${column}) FILTER (WHERE ${only} AND m.value = 'AskMe')`);
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`WITH ${countsCtes(scope)},
      o AS (${orgRow(orgId)}),
      b AS (SELECT now() AS now_at, ${start} AS start_at, date_part('epoch', ${start}) AS start_epoch),
      win AS (
        SELECT e.record_id, e.purpose_id, e.attribute_id, e.occurred_at, e.written, e.new_value, e.new_days,
          lead(e.occurred_at) OVER key AS until, row_number() OVER key AS nth
        FROM consent_events e
        WHERE e.org_id = ${orgId}::uuid AND e.occurred_at >= ${start}
          AND (e.purpose_id, e.attribute_id) IN (SELECT purpose_id, attribute_id FROM live)
          AND e.record_id NOT IN (SELECT id FROM gone)
        WINDOW key AS (PARTITION BY e.record_id, e.purpose_id, e.attribute_id ORDER BY e.occurred_at, e.written)),
      -- The last event before the window of each consent with events in it: probes of
      -- consent_events_record_attribute for a few consents, a merge with it for many (the planner's choice).
      before AS (
        SELECT DISTINCT ON (e.record_id, e.purpose_id, e.attribute_id)
          e.new_value, e.occurred_at, e.new_days, w.occurred_at AS until
        FROM win w JOIN consent_events e ON e.record_id = w.record_id AND e.purpose_id = w.purpose_id
          AND e.attribute_id = w.attribute_id AND e.occurred_at < ${start}
        WHERE w.nth = 1
        ORDER BY e.record_id, e.purpose_id, e.attribute_id, e.occurred_at DESC, e.written DESC),
      -- Each value a touched consent held, from when until when (null: still), and whether an event of the window
      -- set it: the window's events, the last events before them, and the AskMe consents decided before the window
      -- that ran out in it, from their stored rows.
      decisions AS (
        SELECT new_value AS value, occurred_at AS from_at, new_days AS days, until, true AS event FROM win
        UNION ALL
        SELECT new_value, occurred_at, new_days, until, false FROM before
        UNION ALL
        SELECT c.value, c.decided_at, c.days, NULL, false FROM attribute_consents c
        WHERE c.purpose_id = ANY(${liveCte(scope).purposeIds}) AND c.value = 'AskMe' AND c.expires_at IS NOT NULL
          AND c.expires_at >= ${start} AND c.expires_at <= now() AND c.decided_at < ${start}
          AND (c.purpose_id, c.attribute_id) IN (SELECT purpose_id, attribute_id FROM live)
          AND c.record_id NOT IN (SELECT id FROM gone)),
      -- The days each decision's values start and stop holding (an AskMe with days stops at its expiry, and Disallow
      -- holds from then until the next decision), counted by kind: a few thousand groups, however many decisions.
      spans AS (
        SELECT t.value, t.event, ${dayOf(sql`t.from_at`, days)} AS starts,
          ${dayOf(sql`least(t.until, x.lapse)`, days)} AS stops,
          CASE WHEN x.lapse < coalesce(t.until, 'infinity') THEN ${dayOf(sql`x.lapse`, days)} END AS lapses,
          CASE WHEN x.lapse < t.until THEN ${dayOf(sql`t.until`, days)} END AS lapse_stops,
          count(*) AS n
        FROM decisions t CROSS JOIN b
        CROSS JOIN LATERAL (SELECT CASE WHEN t.value = 'AskMe' AND t.days > 0
          THEN t.from_at + t.days * interval '24 hours' END AS lapse) x
        GROUP BY 1, 2, 3, 4, 5, 6),
      -- Per day: +n where a value starts holding, -n where it stops; and the events.
      moves AS (
        SELECT m.i, ${values('m.d * s.n')}, ${values('s.n', 'm.event')}
        FROM spans s CROSS JOIN LATERAL (VALUES (s.starts, s.value, 1, s.event), (s.stops, s.value, -1, false),
          (s.lapses, 'Disallow', 1, false), (s.lapse_stops, 'Disallow', -1, false)) AS m(i, value, d, event)
        WHERE m.i IS NOT NULL
        GROUP BY m.i),
      n AS (SELECT coalesce(sum(allow), 0) AS allow, coalesce(sum(disallow), 0) AS disallow,
              coalesce(sum(askme), 0) AS askme FROM counts)
      SELECT o.catalogue_version, b.now_at, b.start_at + g.i * interval '24 hours' AS day,
        d.ch_allow, d.ch_disallow, d.ch_askme,
        ${total('allow')} AS allow, ${total('disallow')} AS disallow, ${total('askme')} AS askme
      FROM o CROSS JOIN b CROSS JOIN n CROSS JOIN generate_series(0, ${days - 1}::int) AS g(i)
      LEFT JOIN moves AS d(i, allow, disallow, askme, ch_allow, ch_disallow, ch_askme) ON d.i = g.i
      ORDER BY g.i`),
  );
  if (rows.length === 0) return null;
  if (num(rows[0]!.catalogue_version) !== scope.catalogueVersion) return 'stale';
  return {
    now: new Date(rows[0]!.now_at as string | Date),
    days: rows.map((r) => ({
      day: new Date(r.day as string | Date),
      changes: { allow: num(r.ch_allow), disallow: num(r.ch_disallow), askMe: num(r.ch_askme) },
      totals: { allow: num(r.allow), disallow: num(r.disallow), askMe: num(r.askme) },
    })),
  };
}
