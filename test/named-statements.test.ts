/**
 * The hot statements are named statements on a pool of their own whose sessions run every named
 * statement with its generic plan (src/platform/db/open.ts, `statementHandle`). In PostgreSQL's default mode
 * the consented-user pages were planned anew on every call. These tests run on PostgreSQL, whose
 * sessions and prepared statements can be inspected; PGlite has one session and the same plan modes
 * as its default, so the suite is skipped there (CI runs it on PostgreSQL).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf, statementHandle } from '../src/platform/db/open.js';
import { call, onPostgres } from './helpers/assent.js';
import { consentSuite } from './helpers/consent-org.js';

const suite = consentSuite();
const page = (token: string) =>
  call(`${suite.t.base}/organizations/${suite.org.orgId}/purposes/${suite.org.marketing.id}/consented/users`, {
    token,
  });

describe.skipIf(!onPostgres)(
  'named statements run their generic plan, planned once per connection (docs/decisions/0007-consent-read-and-write-path.md: a page costs O(limit))',
  () => {
    it('the named statements pool sets force_generic_plan; the other pool keeps auto', async () => {
      const { db } = suite.t.store;
      const show = async (handle: typeof db) =>
        rowsOf<{ plan_cache_mode: string }>(await handle.execute(sql`SHOW plan_cache_mode`))[0]?.plan_cache_mode;
      expect(await show(statementHandle(db))).toBe('force_generic_plan');
      expect(await show(db)).toBe('auto');
    });

    it('consented-user pages are never planned per call: their named statement has only generic plans', async () => {
      // Sequential requests reuse the pool's most recently released connection, so the statement's
      // counters and the query below meet on one session. In auto mode the first five executions are
      // custom plans, and the pages' stayed custom on every call.
      for (let i = 0; i < 4; i++) expect((await page(suite.org.tokens.owner)).status).toBe(200);
      const result = await statementHandle(suite.t.store.db).execute(
        sql`SELECT name, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'consented_users%'`,
      );
      const rows = rowsOf<{ name: string; generic_plans: string | number; custom_plans: string | number }>(result);
      expect(rows.map((r) => r.name)).toContain('consented_users_purpose');
      const pages = rows.find((r) => r.name === 'consented_users_purpose')!;
      expect(Number(pages.custom_plans)).toBe(0);
      expect(Number(pages.generic_plans)).toBeGreaterThanOrEqual(4);
    });

    it('the pages run on the named statements pool (application_name assent-named-statements)', async () => {
      expect((await page(suite.org.tokens.owner)).status).toBe(200);
      const { rows } = await suite.t.store.raw(
        `SELECT application_name FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%JOIN subscriptions s ON s.org_id%'`,
      );
      const names = new Set((rows as Array<{ application_name: string }>).map((r) => r.application_name));
      expect([...names]).toEqual(['assent-named-statements']);
    });
  },
);
