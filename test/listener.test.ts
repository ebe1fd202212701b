/**
 * The per-process caches (revocations, roles) are emptied by NOTIFYs that arrive on one LISTEN
 * connection per process (src/platform/db/listener.ts). These tests run on PostgreSQL, where that
 * connection is a real backend that can be counted and killed; on PGlite the notifications are
 * in-process and cannot be lost, and the suite is skipped there (CI runs it on PostgreSQL).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Role } from '../src/identity/users/roles.js';
import { call, onPostgres } from './helpers/assent.js';
import { consentSuite } from './helpers/consent-org.js';

const suite = consentSuite();
const page = (token: string) =>
  call(`${suite.t.base}/organizations/${suite.org.orgId}/purposes/${suite.org.marketing.id}/consented/users`, {
    token,
  });

/** The backends of the test database whose last statement was a LISTEN: the listener connections. */
async function listeners(): Promise<number[]> {
  const { rows } = await suite.t.store.raw(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'`,
  );
  return (rows as Array<{ pid: number }>).map((r) => r.pid);
}

/** Polls `check` until it holds or `ms` pass. */
async function within(check: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

const setRole = (user: string, give: boolean) =>
  give
    ? suite.t.store.raw(
        'INSERT INTO user_roles (user_id, org_id, role_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [suite.org.users[user], suite.org.orgId, Role.Dpo],
      )
    : suite.t.store.raw('DELETE FROM user_roles WHERE user_id = $1 AND org_id = $2', [
        suite.org.users[user],
        suite.org.orgId,
      ]);

describe.skipIf(!onPostgres)(
  'one LISTEN connection per process carries every cache invalidation (ASVS 5.0 V8.3.2)',
  () => {
    it('a serving process holds exactly one listener connection for all its NOTIFY channels', async () => {
      // The revocation and role caches both listen (two channels); before one connection was shared,
      // each had its own.
      expect(await within(async () => (await listeners()).length === 1)).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(await listeners()).toHaveLength(1);
    });

    it('when the listener connection is killed, a cached role is not trusted while it is down, and invalidations arrive again once it is back', async () => {
      const dpo = suite.org.tokens.dpo!;
      expect((await page(dpo)).status).toBe(200); // the Dpo's roles are cached now
      const [old] = await listeners();
      const admin = new pg.Client({ connectionString: suite.t.env.DATABASE_URL });
      await admin.connect();
      try {
        await admin.query('SELECT pg_terminate_backend($1)', [old]);
        // A change made while nobody listens: no NOTIFY can reach the server, so only a cache that
        // stopped trusting itself when the connection broke refuses the removed role.
        await setRole('dpo', false);
        expect(await within(async () => (await page(dpo)).status === 403)).toBe(true);
        // The listener comes back on a new connection (retried every second) ...
        expect(await within(async () => (await listeners()).some((pid) => pid !== old), 5000)).toBe(true);
        expect(await listeners()).toHaveLength(1);
        await setRole('dpo', true);
        expect(await within(async () => (await page(dpo)).status === 200)).toBe(true);
        for (let i = 0; i < 3; i++) expect((await page(dpo)).status).toBe(200); // cached again
        // ... and carries the next invalidation.
        await setRole('dpo', false);
        expect(await within(async () => (await page(dpo)).status === 403, 2000)).toBe(true);
      } finally {
        await admin.end();
      }
    });
  },
);
