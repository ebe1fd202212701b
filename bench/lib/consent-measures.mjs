/**
 * Plans of measures (a) and (c) of the consent benchmark: for each, the autocannon spec, the
 * ceiling's route (with the body fetched once from Assent) and what was checked while preparing it.
 *
 * (a) GET /v1/organizations/{org}/users/{user}/consents for one individual, with their own token.
 * (c) consented-users pages of BENCH_PAGE_LIMIT (50) with the Owner's token: a consent-based purpose,
 *     a lawful-basis purpose and one attribute of the consent-based purpose, each at the first page
 *     and at a deep page whose `startid` is the listed user number ⌊0.9 × N⌋ in ID order (computed in
 *     SQL; when the listing holds fewer users than that, number ⌊0.9 × listed⌋: the same depth in
 *     the index). The pages Assent answers are checked against the same listing computed in SQL.
 */

import { USER } from './config.mjs';
import { CONSENT_GOALS, consentOpts, DEEP_FRACTION } from './consent-config.mjs';
import { SPECIAL_PURPOSE } from './consent-dataset.mjs';
import { call, login } from './consent-http.mjs';
import { log } from './util.mjs';

/**
 * @typedef {object} Ctx  what the plans need
 * @property {string} base  the Assent server's URL
 * @property {import('pg').Client} sql  a connection to the bench database
 * @property {string} orgId
 * @property {object} dataset  from generateDataset
 * @property {{access: string}} owner  the Owner's session
 */

const bearer = (token) => ({ authorization: `Bearer ${token}` });

/**
 * (a) Picks an individual near the middle of the ID order with many stored consents, logs them in
 * and fetches their record once.
 * @param {Ctx} ctx
 */
export async function planRead(ctx) {
  const n = ctx.dataset.individuals;
  const mid = Math.floor(n / 2);
  const candidates = Array.from({ length: Math.min(100, n - mid) }, (_, k) => `bench-${mid + k}@acme.example`);
  const {
    rows: [pick],
  } = await ctx.sql.query(
    `SELECT u.id, u.username, count(*)::int AS n FROM users u JOIN attribute_consents c ON c.user_id = u.id
     WHERE u.username = ANY($1) GROUP BY u.id, u.username ORDER BY n DESC, u.username LIMIT 1`,
    [candidates],
  );
  const session = await login(ctx.base, pick.username, USER.password);
  const path = `/v1/organizations/${ctx.orgId}/users/${pick.id}/consents`;
  const { text, json } = await call(ctx.base, 'GET', path, { token: session.access, expect: 200 });
  const purposes = json.ConsentsAndPurposes.length;
  const attributes = json.ConsentsAndPurposes.reduce((sum, p) => sum + p.Consents.length, 0);
  log(
    `read: ${pick.username} (${pick.n} stored consents; the record shows ${purposes} purposes, ${attributes} ` +
      `attributes, ${text.length} bytes)`,
  );
  return {
    individual: {
      username: pick.username,
      userId: pick.id,
      storedConsents: pick.n,
      purposes,
      attributes,
      bodyBytes: text.length,
    },
    route: {
      method: 'GET',
      pattern: '/v1/organizations/:organizationID/users/:userID/consents',
      bodies: { [path]: text },
    },
    spec: {
      name: 'GET consents of one individual',
      connections: consentOpts.readConnections,
      options: () => ({ path, headers: bearer(session.access) }),
    },
    goals: { perSecond: CONSENT_GOALS.readPerSecond, p99Ms: CONSENT_GOALS.readP99Ms },
  };
}

const COUNTING = `c.value <> 'Disallow' AND (c.expires_at IS NULL OR c.expires_at > now())`;

/**
 * The listing's users (unordered), by the listing rules of docs/decisions/0007-consent-read-and-write-path.md, in plain
 * SQL. Parameters: $1 org, $2 purpose, $3 attributes.
 */
function listedSql(lawful) {
  if (lawful) {
    // Everyone subscribed, unless every one of the attributes is stored as not counting (one pass, hash join).
    return `SELECT s.user_id FROM subscriptions s LEFT JOIN (
        SELECT c.user_id, count(*) AS n FROM attribute_consents c
        WHERE c.purpose_id = $2 AND c.attribute_id = ANY($3::uuid[]) AND NOT (${COUNTING})
        GROUP BY c.user_id) x ON x.user_id = s.user_id
      WHERE s.org_id = $1 AND coalesce(x.n, 0) < cardinality($3::uuid[])`;
  }
  return `SELECT DISTINCT c.user_id FROM attribute_consents c
    JOIN subscriptions s ON s.org_id = $1 AND s.user_id = c.user_id
    WHERE c.purpose_id = $2 AND c.attribute_id = ANY($3::uuid[]) AND ${COUNTING}`;
}

/** The listings measured: a consent-based purpose, a lawful-basis purpose, an attribute of the first. */
function listings(dataset) {
  const consent = dataset.purposes.find((p) => !p.lawful);
  const lawful =
    dataset.purposes.find((p, i) => p.lawful && i !== SPECIAL_PURPOSE) ?? dataset.purposes.find((p) => p.lawful);
  return [
    {
      key: 'consent-purpose',
      label: `purpose "${consent.name}" (consent)`,
      purpose: consent,
      attributeIds: consent.attributeIds,
      attributeId: undefined,
    },
    {
      key: 'lawful-purpose',
      label: `purpose "${lawful.name}" (lawful basis)`,
      purpose: lawful,
      attributeIds: lawful.attributeIds,
      attributeId: undefined,
    },
    {
      key: 'attribute',
      label: `attribute "${consent.attributes[0]}" of "${consent.name}"`,
      purpose: consent,
      attributeIds: [consent.attributeIds[0]],
      attributeId: consent.attributeIds[0],
    },
  ];
}

async function expectedPages(ctx, listing, limit) {
  const listed = listedSql(listing.purpose.lawful);
  const values = [ctx.orgId, listing.purpose.id, listing.attributeIds];
  const {
    rows: [{ n }],
  } = await ctx.sql.query(`SELECT count(*)::int AS n FROM (${listed}) l`, values);
  let position = Math.floor(DEEP_FRACTION * ctx.dataset.individuals);
  const fallback = n < position + limit + 1;
  if (fallback) position = Math.floor(DEEP_FRACTION * n);
  // The listing is materialised and numbered once, in one pass.
  const { rows } = await ctx.sql.query(
    `WITH listed AS MATERIALIZED (${listed}),
     numbered AS (SELECT user_id, row_number() OVER (ORDER BY user_id) AS rn FROM listed)
     SELECT user_id, rn::int FROM numbered WHERE rn <= $4 OR rn BETWEEN $5 AND $5 + $4 ORDER BY rn`,
    [...values, limit, position],
  );
  const first = rows.filter((r) => r.rn <= limit).map((r) => r.user_id);
  const [startId, ...deep] = rows.filter((r) => r.rn >= position).map((r) => r.user_id);
  return { listed: n, position, fallback, startId, first, deep };
}

/**
 * (c) For each listing, computes the pages in SQL, fetches both from Assent (Owner) and checks them.
 * @param {Ctx} ctx
 * @returns the page plans (two per listing) and, for EXPLAIN, what each page asked.
 */
export async function planPages(ctx) {
  const limit = consentOpts.pageLimit;
  // Serial plans for the check SQL: on PostgreSQL 15 a parallel hash join of the attribute listing
  // (row estimate 4x low) ran for minutes at 1,000,000 individuals, against 1.3 s serial.
  await ctx.sql.query('SET max_parallel_workers_per_gather = 0');
  const plans = [];
  for (const listing of listings(ctx.dataset)) {
    const t0 = performance.now();
    const expected = await expectedPages(ctx, listing, limit);
    const prefix =
      `/v1/organizations/${ctx.orgId}/purposes/${listing.purpose.id}` +
      (listing.attributeId ? `/attributes/${listing.attributeId}` : '');
    const pattern =
      '/v1/organizations/:organizationID/purposes/:purposeID' +
      (listing.attributeId ? '/attributes/:attributeID' : '') +
      '/consented/users';
    const fallback = expected.fallback
      ? ` (fewer than ${Math.floor(DEEP_FRACTION * ctx.dataset.individuals)} + ${limit} listed: ` +
        `${DEEP_FRACTION * 100} % of the listing instead)`
      : '';
    log(
      `pages: ${listing.label}: ${expected.listed} listed users; deep page after listed user #${expected.position}` +
        `${fallback}; SQL ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    for (const depth of ['first', 'deep']) {
      const path = `${prefix}/consented/users?limit=${limit}${depth === 'deep' ? `&startid=${expected.startId}` : ''}`;
      const { text, json } = await call(ctx.base, 'GET', path, { token: ctx.owner.access, expect: 200 });
      const got = json.Users.map((u) => u.ID);
      const want = depth === 'first' ? expected.first : expected.deep;
      const matches = JSON.stringify(got) === JSON.stringify(want);
      if (!matches)
        log(
          `pages: WARNING: ${listing.label}, ${depth} page: Assent's ${got.length} users differ from the SQL ` +
            `listing's ${want.length}`,
        );
      plans.push({
        listing: listing.key,
        depth,
        label: `${listing.label}, ${depth} page`,
        query: {
          orgId: ctx.orgId,
          purposeId: listing.purpose.id,
          attributeId: listing.attributeId,
          startId: depth === 'deep' ? expected.startId : undefined,
          limit,
        },
        check: {
          listed: expected.listed,
          position: depth === 'deep' ? expected.position : 0,
          positionFallback: depth === 'deep' && expected.fallback,
          users: got.length,
          hasNext: Boolean(json.Links?.Next),
          matchesSql: matches,
          bodyBytes: text.length,
        },
        route: { method: 'GET', pattern, bodies: { [path]: text } },
        spec: {
          name: `page of ${limit}: ${listing.label}, ${depth} page`,
          connections: consentOpts.readConnections,
          options: () => ({ path, headers: bearer(ctx.owner.access) }),
        },
      });
    }
  }
  return plans;
}
