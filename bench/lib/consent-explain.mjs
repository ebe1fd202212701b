/**
 * Measure (e): EXPLAIN (ANALYZE, BUFFERS) of the SQL behind the consented-users pages. The SQL is
 * not copied: the product's own ListingService (dist/consent/listings/service.js, hence
 * src/consent/listings/store.ts) runs each page against a Drizzle handle whose logger captures every
 * statement and its parameters, exactly as the server sends them. The server sends them as named
 * statements on connections with plan_cache_mode = force_generic_plan (src/platform/db/open.ts,
 * statementHandle), so PostgreSQL runs their generic plans; so each is explained the same way here:
 * PREPAREd in a session with plan_cache_mode = force_generic_plan and EXPLAIN ... EXECUTEd with the
 * same parameters, as literals, without JIT like the server.
 *
 * A plan is judged O(limit) when it has a Limit, no Seq Scan on a big table, and its scans read at
 * most READ_FACTOR × (limit + 1) rows (rows returned plus rows removed by filters, times loops).
 */

import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { r2 } from './util.mjs';

const BIG_TABLES = ['users', 'subscriptions', 'consent_records', 'attribute_consents', 'consent_events'];
const READ_FACTOR = 20;

function walk(node, visit, depth = 0) {
  visit(node, depth);
  for (const child of node.Plans ?? []) walk(child, visit, depth + 1);
}

/** Condenses a FORMAT JSON plan: node outline, scans, rows read, buffers, verdict. */
function summarisePlan(explained, limit) {
  const root = explained.Plan;
  const scans = [];
  const outline = [];
  let hasLimit = false;
  walk(root, (node, depth) => {
    const loops = node['Actual Loops'] ?? 1;
    const on = node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
    const using = node['Index Name'] ? ` using ${node['Index Name']}` : '';
    outline.push(
      `${'  '.repeat(depth)}${node['Node Type']}${using}${on} (rows ${node['Actual Rows']} x ${loops} loops)`,
    );
    if (node['Node Type'] === 'Limit') hasLimit = true;
    if (/Scan$/.test(node['Node Type']) && node['Relation Name']) {
      const removed = (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
      scans.push({
        node: node['Node Type'],
        relation: node['Relation Name'],
        index: node['Index Name'] ?? null,
        loops,
        rows: Math.round(node['Actual Rows'] * loops),
        removedByFilter: Math.round(removed * loops),
        heapFetches: node['Heap Fetches'] ?? null,
      });
    }
  });
  const rowsRead = scans.reduce((sum, s) => sum + s.rows + s.removedByFilter, 0);
  const seqScansOnBigTables = scans
    .filter((s) => s.node === 'Seq Scan' && BIG_TABLES.includes(s.relation))
    .map((s) => s.relation);
  const bound = READ_FACTOR * (limit + 1);
  const oLimit = hasLimit && seqScansOnBigTables.length === 0 && rowsRead <= bound;
  return {
    executionMs: r2(explained['Execution Time']),
    planningMs: r2(explained['Planning Time']),
    hasLimit,
    seqScansOnBigTables,
    rowsRead,
    rowsReadBound: bound,
    sharedHitBlocks: root['Shared Hit Blocks'] ?? null,
    sharedReadBlocks: root['Shared Read Blocks'] ?? null,
    scans,
    outline,
    verdict: oLimit ? 'O(limit)' : 'NOT O(limit)',
  };
}

/**
 * Explains every statement of each page.
 * @param {string} url  the bench database
 * @param {Array<{label: string, query: {orgId: string, purposeId: string, attributeId?: string, startId?: string,
 * limit: number}}>} pages
 * @returns per page: its statements, each with the SQL, the parameters, the text plan and the summary;
 *   `main` is the index of the consented-users statement (the one reading attribute_consents).
 */
export async function explainPages(url, pages) {
  const schema = await import('../../dist/platform/db/schema/index.js');
  const { ListingService } = await import('../../dist/consent/listings/service.js');
  const { CatalogueCache } = await import('../../dist/consent/catalogue/cache.js');
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {}); // an idle client lost: the next query fails instead
  const captured = [];
  const db = drizzle(pool, { schema, logger: { logQuery: (query, params) => captured.push({ query, params }) } });
  const client = await pool.connect();
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query('SET jit = off'); // as on the server's connections (src/platform/db/open.ts)
  const literal = (v) =>
    v === null || v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : client.escapeLiteral(String(v));
  let prepared = 0;
  const explain = async (options, query, params) => {
    const name = `explained_${prepared++}`;
    await client.query(`PREPARE ${name} AS ${query}`);
    try {
      return (
        await client.query(
          `EXPLAIN (${options}) EXECUTE ${name}${params.length ? `(${params.map(literal).join(', ')})` : ''}`,
        )
      ).rows;
    } finally {
      await client.query(`DEALLOCATE ${name}`);
    }
  };
  try {
    const out = [];
    for (const page of pages) {
      const q = page.query;
      captured.length = 0;
      await new ListingService(db, new CatalogueCache(db)).page(
        q.orgId,
        q.purposeId,
        q.attributeId,
        q.startId,
        q.limit,
      );
      const statements = [];
      for (const { query, params } of captured) {
        const json = (await explain('ANALYZE, BUFFERS, FORMAT JSON', query, params))[0]['QUERY PLAN'][0];
        const text = (await explain('ANALYZE, BUFFERS', query, params)).map((r) => r['QUERY PLAN']);
        statements.push({
          sql: query.replace(/\s+/g, ' ').trim(),
          params,
          plan: text,
          summary: summarisePlan(json, q.limit),
        });
      }
      const main = statements.findIndex((s) => /attribute_consents/.test(s.sql));
      // The page's other statements (its purpose, its attributes) read a few configuration rows by key.
      for (const [i, st] of statements.entries()) if (i !== main) st.summary.verdict = 'n/a (configuration lookup)';
      out.push({ label: page.label, listing: page.listing, depth: page.depth, limit: q.limit, main, statements });
    }
    return out;
  } finally {
    client.release();
    await pool.end();
  }
}
