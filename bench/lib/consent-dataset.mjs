/**
 * The consent benchmark's dataset, written through SQL in bulk into the demo organisation "acme"
 * (after `assent migrate` and `assent import examples/demo.json`):
 *
 * - 5 purposes × 4 data attributes (purposes, data_attributes, purpose_attributes); "fraud" and
 *   "service" have a lawful basis other than consent (lawful_usage true);
 * - N individuals (users, subscriptions, consent_records), IDs shaped like the application's UUIDv7
 *   (creation time over the past three years, then md5 bits), so ID order is creation order; every
 *   one has alice's password hash, so any of them can log in with alice's password;
 * - attribute_consents in a realistic mix (see MIX): 40 % of the individuals never decided anything;
 *   the others decided on some purposes, some attributes each: Allow / Disallow / AskMe, some AskMe
 *   with days (a few of them expired and not yet swept); exactly the individuals with a mix draw in
 *   [0.40, 0.50), 10 % of all, hold one Disallow on the lawful purpose "service" (the target of the
 *   special consent request).
 *
 * All draws are deterministic (hashint8 of the individual's index and a salt). Secondary indexes and
 * foreign keys of the four bulk tables are dropped during the load and re-created from their own
 * definitions afterwards (so the schema ends as the migrations made it, the keys validated by
 * PostgreSQL); then VACUUM (ANALYZE) and CHECKPOINT. No consent history is generated: the events
 * table starts empty (a hash chain cannot be forged in SQL).
 */
import pg from 'pg';
import { log, r1 } from './util.mjs';

/** The purposes added to the organisation; `lawful` = lawful_usage. Index order = creation order. */
export const PURPOSES = [
  {
    key: 'bench-newsletter',
    name: 'Newsletter',
    lawful: false,
    attributes: ['Email address', 'First name', 'Preferred language', 'Interests'],
  },
  {
    key: 'bench-offers',
    name: 'Personalised offers',
    lawful: false,
    attributes: ['Purchase history', 'Loyalty tier', 'Postal code', 'Age group'],
  },
  {
    key: 'bench-research',
    name: 'Product research',
    lawful: false,
    attributes: ['Survey answers', 'App usage', 'Device type', 'Household size'],
  },
  {
    key: 'bench-fraud',
    name: 'Fraud prevention',
    lawful: true,
    attributes: ['IP address', 'Payment card fingerprint', 'Login history', 'Device ID'],
  },
  {
    key: 'bench-service',
    name: 'Customer service',
    lawful: true,
    attributes: ['Phone number', 'Order history', 'Support tickets', 'Call recordings'],
  },
];
/** Index (in PURPOSES) of the lawful purpose on which 10 % of the individuals hold a Disallow. */
export const SPECIAL_PURPOSE = 4;
const BULK_TABLES = ['users', 'subscriptions', 'consent_records', 'attribute_consents'];

/** A deterministic draw in [0, 1) from an integer SQL expression and a salt. */
const draw = (expr, salt) => `((hashint8((${expr})::bigint * 1000 + ${salt}) & 2147483647) / 2147483648.0)`;
/** A UUIDv7-shaped ID: 48 bits of milliseconds of `t`, version 7, variant 10, the rest from md5(`seed`). */
const v7 = (t, seed) =>
  `(lpad(to_hex(floor(extract(epoch FROM ${t}) * 1000)::bigint), 12, '0') || '7' || substr(md5(${seed}), 1, 3) || ` +
  `to_hex(8 + get_byte(decode(md5(${seed}), 'hex'), 15) % 4) || substr(md5(${seed}), 4, 15))::uuid`;

/**
 * The mix, per (individual, purpose p, attribute a), k = i*32 + p*4 + a:
 * - decided individuals: draw(i,1) >= 0.40;
 * - consent purposes (p 0-2): touched with probability 0.75 per purpose, then a row for each
 *   attribute with probability 0.8: Allow 50 %, Disallow 35 %, AskMe 15 % (40 % of those with days
 *   0, the others 30/90/180/365 days, decided so that about 5 % have expired);
 * - "fraud" (p 3): touched 0.2, row 0.8: Allow 85 %, Disallow 15 % (objections);
 * - "service" (p 4): draw(i,1) in [0.40, 0.50): one Disallow on attribute floor(draw(i,7)*4);
 *   otherwise touched 0.15, row 0.8, Allow.
 */
const MIX = `
  WITH c AS (
    SELECT p.i, p.user_id, p.record_id, p.created_at, a.pidx, a.aidx, a.purpose_id, a.attribute_id,
           ${draw('p.i', 1)} AS ru, ${draw('p.i * 8 + a.pidx', 2)} AS rt, ${draw('g.k', 3)} AS rr,
           ${draw('g.k', 4)} AS x, ${draw('g.k', 5)} AS y, ${draw('g.k', 6)} AS z,
           floor(${draw('p.i', 7)} * 4) AS special_aidx
    -- The lateral series keeps the individuals as the outer side: rows are written in user order.
    FROM bench_people p CROSS JOIN LATERAL generate_series(p.i * 32, p.i * 32 + 19) AS g(k)
    JOIN bench_attrs a ON a.pidx * 4 + a.aidx = g.k - p.i * 32
  ), v AS (
    SELECT c.*,
      CASE WHEN pidx <= 2 THEN CASE WHEN x < 0.5 THEN 'Allow' WHEN x < 0.85 THEN 'Disallow' ELSE 'AskMe' END
           WHEN pidx = 3 THEN CASE WHEN x < 0.85 THEN 'Allow' ELSE 'Disallow' END
           WHEN ru < 0.5 THEN 'Disallow' ELSE 'Allow' END AS value,
      CASE WHEN pidx <= 2 AND x >= 0.85 AND y >= 0.4 THEN (ARRAY[30, 90, 180, 365])[1 + floor((y - 0.4) / 0.15)::int]
           ELSE 0 END AS days
    FROM c
    WHERE ru >= 0.4 AND CASE WHEN pidx <= 2 THEN rt < 0.75 AND rr < 0.8
                             WHEN pidx = 3 THEN rt < 0.2 AND rr < 0.8
                             ELSE (ru < 0.5 AND aidx = special_aidx) OR (ru >= 0.5 AND rt < 0.15 AND rr < 0.8) END
  ), d AS (
    SELECT v.*, CASE WHEN days > 0 THEN greatest(created_at, now() - z * 1.05 * days * interval '1 day')
                     ELSE created_at + z * (now() - created_at) END AS decided_at
    FROM v
  )
  INSERT INTO attribute_consents (record_id, purpose_id, attribute_id, user_id, value, days, decided_at, expires_at)
  SELECT record_id, purpose_id, attribute_id, user_id, value, days, decided_at,
         CASE WHEN value = 'AskMe' AND days > 0 THEN decided_at + days * interval '1 day' END
  FROM d`;

async function timed(client, label, text, values) {
  const t0 = performance.now();
  const res = await client.query(text, values);
  const seconds = (performance.now() - t0) / 1000;
  log(
    `dataset:   ${label}: ${r1(seconds)} s${res.rowCount != null && res.command !== 'SELECT' ? ` (${res.rowCount} rows)` : ''}`,
  );
  return { res, seconds };
}

async function addPurposes(client, orgId) {
  await client.query(
    'CREATE TEMP TABLE bench_attrs (pidx int, aidx int, purpose_id uuid, attribute_id uuid, lawful boolean)',
  );
  for (const [pidx, p] of PURPOSES.entries()) {
    const { rows } = await client.query(
      `INSERT INTO purposes (id, org_id, key, name, description, lawful_usage, policy_url, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, now() + $7 * interval '1 millisecond') RETURNING id`,
      [orgId, p.key, p.name, `${p.name} (benchmark purpose)`, p.lawful, `https://acme.example/privacy#${p.key}`, pidx],
    );
    for (const [aidx, name] of p.attributes.entries()) {
      const order = pidx * 4 + aidx;
      const { rows: attr } = await client.query(
        `INSERT INTO data_attributes (id, org_id, purpose_id, key, name, created_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, now() + $5 * interval '1 millisecond') RETURNING id`,
        [orgId, rows[0].id, `a${aidx}`, name, order],
      );
      await client.query(
        `INSERT INTO purpose_attributes (purpose_id, attribute_id, created_at)
         VALUES ($1, $2, now() + $3 * interval '1 millisecond')`,
        [rows[0].id, attr[0].id, order],
      );
      await client.query('INSERT INTO bench_attrs VALUES ($1, $2, $3, $4, $5)', [
        pidx,
        aidx,
        rows[0].id,
        attr[0].id,
        p.lawful,
      ]);
    }
  }
  const { rows } = await client.query(
    `SELECT pidx, aidx, purpose_id AS "purposeId", attribute_id AS "attributeId", lawful
     FROM bench_attrs ORDER BY pidx, aidx`,
  );
  return PURPOSES.map((p, pidx) => ({
    ...p,
    id: rows.find((r) => r.pidx === pidx).purposeId,
    attributeIds: rows.filter((r) => r.pidx === pidx).map((r) => r.attributeId),
  }));
}

/** Secondary indexes (those no constraint uses) and foreign keys of the bulk tables, with their definitions. */
async function secondaryObjects(client) {
  const { rows: indexes } = await client.query(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'public' AND t.relname = ANY($1)
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
     ORDER BY 1`,
    [BULK_TABLES],
  );
  const { rows: foreignKeys } = await client.query(
    `SELECT k.conname AS name, t.relname AS "table", pg_get_constraintdef(k.oid) AS def
     FROM pg_constraint k JOIN pg_class t ON t.oid = k.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE k.contype = 'f' AND n.nspname = 'public' AND t.relname = ANY($1) ORDER BY 1`,
    [BULK_TABLES],
  );
  return { indexes, foreignKeys };
}

/**
 * VACUUM cannot mark a page all-visible while any transaction that might not see its rows is open
 * somewhere it counts (other sessions on a shared PostgreSQL briefly hold such horizons), and then
 * index-only scans fetch every heap row. Vacuums the bulk tables again until they are all-visible
 * (a vacuum only visits pages not yet marked), at most 5 times.
 * @returns how many extra vacuums it took.
 */
async function vacuumUntilAllVisible(client) {
  for (let extra = 0; ; extra++) {
    const { rows } = await client.query(
      `SELECT relname, relpages, relallvisible FROM pg_class
       WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1) AND relallvisible < relpages`,
      [BULK_TABLES],
    );
    if (rows.length === 0) return extra;
    if (extra === 5) {
      log(
        'dataset: WARNING: not all-visible after 5 extra vacuums: ' +
          rows.map((r) => `${r.relname} ${r.relallvisible}/${r.relpages}`).join(', '),
      );
      return extra;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await client.query(`VACUUM ${rows.map((r) => pg.escapeIdentifier(r.relname)).join(', ')}`);
  }
}

async function statistics(client, purposes) {
  const { rows: values } = await client.query(
    'SELECT value, count(*)::int AS n FROM attribute_consents GROUP BY value ORDER BY value',
  );
  const {
    rows: [s],
  } = await client.query(
    `SELECT (SELECT count(*) FROM bench_people p
              WHERE NOT EXISTS (SELECT 1 FROM attribute_consents c WHERE c.user_id = p.user_id))::int AS "neverDecided",
            (SELECT count(*) FROM attribute_consents
              WHERE value = 'AskMe' AND expires_at IS NOT NULL)::int AS "askMeWithDays",
            (SELECT count(*) FROM attribute_consents WHERE value = 'AskMe' AND expires_at <= now())::int AS "askMeExpired",
            (SELECT count(DISTINCT user_id) FROM attribute_consents
              WHERE purpose_id = $1 AND value = 'Disallow')::int AS "specialDisallowUsers",
            (SELECT round(sum(relallvisible)::numeric / sum(relpages), 3) FROM pg_class
              WHERE relnamespace = 'public'::regnamespace AND relname = ANY($2)) AS "allVisibleFraction",
            (SELECT correlation FROM pg_stats
              WHERE tablename = 'attribute_consents' AND attname = 'user_id') AS "userOrderCorrelation",
            (SELECT pg_total_relation_size('attribute_consents') + pg_total_relation_size('users')
              + pg_total_relation_size('subscriptions') + pg_total_relation_size('consent_records'))::bigint AS bytes`,
    [purposes[SPECIAL_PURPOSE].id, BULK_TABLES],
  );
  return {
    attributeConsents: Object.fromEntries(values.map((r) => [r.value, r.n])),
    ...s,
    sizeMiB: r1(Number(s.bytes) / 2 ** 20),
  };
}

/**
 * Generates the dataset into organisation `orgId` of the database at `url`.
 * @param url - the bench database (PostgreSQL on this machine).
 * @param orgId - the organisation (acme, from the import).
 * @param individuals - how many individuals to add.
 * @returns the purposes (with IDs), timings and statistics of the data.
 */
export async function generateDataset(url, orgId, individuals) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', (err) => log(`dataset: connection lost: ${err.message}`)); // the running query fails the run
  await client.connect();
  const t0 = performance.now();
  const steps = {};
  try {
    await client.query("SET synchronous_commit = off; SET maintenance_work_mem = '512MB'; SET work_mem = '64MB'");
    const purposes = await addPurposes(client, orgId);
    const {
      rows: [alice],
    } = await client.query("SELECT password_hash FROM users WHERE username = 'alice@acme.example'");
    if (!alice?.password_hash)
      throw new Error('alice@acme.example has no password hash: was examples/demo.json imported?');
    const secondary = await secondaryObjects(client);
    log(
      `dataset: ${individuals} individuals into organisation ${orgId}; dropping ${secondary.indexes.length} ` +
        `secondary indexes and ${secondary.foreignKeys.length} foreign keys during the load`,
    );
    for (const fk of secondary.foreignKeys)
      await client.query(
        `ALTER TABLE ${pg.escapeIdentifier(fk.table)} DROP CONSTRAINT ${pg.escapeIdentifier(fk.name)}`,
      );
    for (const ix of secondary.indexes) await client.query(`DROP INDEX ${ix.name}`);

    const run = async (key, label, text, values) => {
      steps[key] = r1((await timed(client, label, text, values)).seconds);
    };
    await run(
      'people',
      'individuals (temp table)',
      `
      CREATE TEMP TABLE bench_people AS
      SELECT i, ${v7('t', "'u' || i")} AS user_id, ${v7('t', "'r' || i")} AS record_id, t AS created_at
      FROM (SELECT i, now() - interval '1095 days' + interval '1095 days' * ((i - 0.5) / $1::int) AS t
            FROM generate_series(1, $1::int) i) s`,
      [individuals],
    );
    await run(
      'users',
      'users',
      `
      INSERT INTO users (id, username, name, email, phone, password_hash, created_at, updated_at)
      SELECT user_id, 'bench-' || i || '@acme.example', 'Bench Individual ' || i, 'bench-' || i || '@acme.example',
             '+4670' || lpad(i::text, 7, '0'), $1, created_at, created_at
      FROM bench_people ORDER BY i`,
      [alice.password_hash],
    );
    await run(
      'subscriptions',
      'subscriptions',
      `INSERT INTO subscriptions (user_id, org_id, eula_accepted, created_at)
       SELECT user_id, $1, true, created_at FROM bench_people ORDER BY i`,
      [orgId],
    );
    await run(
      'consentRecords',
      'consent_records',
      `INSERT INTO consent_records (id, org_id, user_id, created_at)
       SELECT record_id, $1, user_id, created_at FROM bench_people ORDER BY i`,
      [orgId],
    );
    await client.query('ANALYZE bench_people; ANALYZE bench_attrs'); // so that the plan keeps the individuals outer
    await run('attributeConsents', 'attribute_consents', MIX);

    const t1 = performance.now();
    for (const ix of secondary.indexes) await client.query(ix.def);
    for (const fk of secondary.foreignKeys)
      await client.query(
        `ALTER TABLE ${pg.escapeIdentifier(fk.table)} ADD CONSTRAINT ${pg.escapeIdentifier(fk.name)} ${fk.def}`,
      );
    steps.indexesAndKeys = r1((performance.now() - t1) / 1000);
    log(`dataset:   indexes re-created and foreign keys re-validated: ${steps.indexesAndKeys} s`);
    const after = await secondaryObjects(client);
    if (JSON.stringify(after) !== JSON.stringify(secondary))
      throw new Error("the re-created indexes or foreign keys differ from the migration's");

    await run('vacuumAnalyze', 'VACUUM (ANALYZE)', 'VACUUM (ANALYZE)');
    steps.vacuumRetries = await vacuumUntilAllVisible(client);
    await run('checkpoint', 'CHECKPOINT', 'CHECKPOINT');
    const seconds = r1((performance.now() - t0) / 1000);
    const stats = await statistics(client, purposes);
    log(`dataset: generated in ${seconds} s: ${JSON.stringify(stats)}`);
    return { individuals, seconds, steps, purposes, stats };
  } finally {
    await client.end();
  }
}
