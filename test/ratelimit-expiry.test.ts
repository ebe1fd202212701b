/**
 * Rate-limit counters carry the end of their window (`rate_limits.expires_at`, migration 0016): the
 * statement that counts writes it from the window its limit is counted in, and the purge
 * (src/app/purge.ts) deletes the expired ones without knowing any key family, while a counter
 * of a longer window stays (ASVS 5.0 V2.4.1). Counters stored before the migration get an end
 * from their rule, so none lapses at the upgrade and none stays for ever.
 */

import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDataDir } from '../src/platform/db/lock.js';
import { openPglite, openPostgres, type Store } from '../src/platform/db/open.js';
import {
  call,
  copyPgliteTemplate,
  freshPostgresDatabase,
  login,
  onPostgres,
  startAssent,
  type TestAssent,
} from './helpers/assent.js';

const MIGRATIONS = path.resolve(__dirname, '../drizzle');

let t: TestAssent;
beforeAll(async () => {
  // Password-reset windows of 3 s, anonymous-user creation in its default hour, a purge every second.
  t = await startAssent({ ASSENT_PURGE_SECONDS: '1', ASSENT_FORGOT_WINDOW_SECONDS: '3' });
});
afterAll(() => t?.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The counter of `key`: its count, and its end as seconds after its window began; null when there is none. */
async function counter(key: string): Promise<{ count: number; seconds: number; expiresAt: string } | null> {
  const { rows } = await t.store.raw(
    `SELECT count, extract(epoch FROM expires_at - window_start)::int AS seconds, expires_at::text AS "expiresAt"
     FROM rate_limits WHERE key = $1`,
    [key],
  );
  return (rows[0] as { count: number; seconds: number; expiresAt: string } | undefined) ?? null;
}

/** Polls `check` every 250 ms for at most `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await sleep(250)) if (await check()) return true;
  return check();
}

describe('ASVS 5.0 V2.4.1: each rate-limit counter carries its own expiry', () => {
  it('a short window’s counter is purged once it ends, while a longer window’s counter stays', async () => {
    const orgId = t.ids.organisations.acme!.id;
    const owner = await login(t, 'owner@acme.example', 'owner-passphrase');
    const created = await call(`${t.base}/organizations/${orgId}/users/anonymous`, {
      method: 'POST',
      token: owner.Token.access_token,
    });
    expect(created.status).toBe(201);
    expect(await counter(`anon:${orgId}`)).toMatchObject({ count: 1, seconds: 3600 });

    const name = `ghost-${randomUUID()}@acme.example`;
    const forgot = () => call(`${t.base}/user/password/forgot`, { method: 'PUT', body: { username: name } });
    expect((await forgot()).status).toBe(200);
    const first = await counter(`forgot:u:${name}`);
    expect(first).toMatchObject({ count: 1, seconds: 3 });
    // A second event inside the window counts on in it: the end stays where it was.
    expect((await forgot()).status).toBe(200);
    expect(await counter(`forgot:u:${name}`)).toEqual({ ...first, count: 2 });

    expect(await eventually(async () => (await counter(`forgot:u:${name}`)) === null, 8000)).toBe(true);
    expect(await counter(`anon:${orgId}`)).toMatchObject({ count: 1, seconds: 3600 });
  });
});

/** The journal entry of migration 0016. */
function entry0016(): { idx: number; when: number } {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ idx: number; when: number }>;
  };
  return journal.entries.find((e) => e.idx === 16)!;
}

/** A copy of the migrations folder that ends with 0016. */
function migrationsThrough0016(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-migrations-'));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalFile = path.join(dir, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ idx: number }> };
  journal.entries = journal.entries.filter((e) => e.idx <= 16);
  writeFileSync(journalFile, JSON.stringify(journal));
  return dir;
}

/**
 * A copy of the run's migrated store (test/helpers/global-setup.ts) wound back to just before
 * migration 0016: its column dropped, and its row in Drizzle's journal table (and any later
 * migration's, which the folder of `migrationsThrough0016` leaves out) forgotten. Much faster than
 * migrating an empty store to 0015.
 */
async function storeBefore0016(): Promise<{ store: Store; close(): Promise<void> }> {
  let store: Store;
  let close: () => Promise<void>;
  if (onPostgres) {
    const database = await freshPostgresDatabase({ migrated: true });
    store = openPostgres(database.url, 1);
    close = async () => {
      await store.close();
      await database.drop();
    };
  } else {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-test-'));
    copyPgliteTemplate(dataDir);
    const release = await lockDataDir(dataDir);
    store = await openPglite(dataDir);
    close = async () => {
      await store.close();
      await release();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  await store.raw('ALTER TABLE rate_limits DROP COLUMN expires_at');
  await store.raw('DELETE FROM drizzle.__drizzle_migrations WHERE created_at >= $1', [entry0016().when]);
  return { store, close };
}

describe('migration 0016 gives the counters stored before it an end from their rule', () => {
  it('the fixed 60 s federation window exactly, the configurable windows and any other key a day', async () => {
    const folder = migrationsThrough0016();
    const { store, close } = await storeBefore0016();
    try {
      await store.raw(`INSERT INTO rate_limits (key, window_start, count) VALUES
        ('fed-authorize:ip:203.0.113.9', now() - interval '10 seconds', 3),
        ('forgot:u:ghost@acme.example', now() - interval '10 minutes', 2),
        ('anon:00000000-0000-4000-8000-000000000000', now() - interval '50 minutes', 9), ('other:key', now(), 1)`);
      if (store.kind === 'pglite') await migratePglite(store.db as never, { migrationsFolder: folder });
      else await migratePg(store.db as never, { migrationsFolder: folder });
      const { rows } = await store.raw(
        `SELECT key, count, extract(epoch FROM expires_at - window_start)::int AS seconds
         FROM rate_limits ORDER BY key`,
      );
      expect(rows).toEqual([
        { key: 'anon:00000000-0000-4000-8000-000000000000', count: 9, seconds: 86400 },
        { key: 'fed-authorize:ip:203.0.113.9', count: 3, seconds: 60 },
        { key: 'forgot:u:ghost@acme.example', count: 2, seconds: 86400 },
        { key: 'other:key', count: 1, seconds: 86400 },
      ]);
      // From now on every counter is written with its end.
      await expect(
        store.raw(`INSERT INTO rate_limits (key, window_start, count) VALUES ('x', now(), 1)`),
      ).rejects.toThrow(/expires_at/);
    } finally {
      await close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
