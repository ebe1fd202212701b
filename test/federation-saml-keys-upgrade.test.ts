/**
 * The upgrade to SAML SP key pairs with a lifecycle of their own (drizzle/0025_saml_sp_key_pairs.sql,
 * docs/decisions/0026-saml-sp-key-rollover.md): a store migrated up to the release before it, holding
 * an SP key made for the active ES256 key and one made for a retired one, is migrated to the
 * current schema; the first stays the active signing key (IdPs that pinned its certificate keep
 * working) and the second stays published after it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSpKey, SpKeys } from '../src/federation/saml/sp-keys.js';
import { rotateSigningKey } from '../src/identity/tokens/keys.js';
import { masterKeyFrom } from '../src/platform/crypto/master-key.js';
import { openPglite, openPostgres, type Store } from '../src/platform/db/open.js';
import { freshPostgresDatabase, onPostgres } from './helpers/assent.js';
import { ROOT } from './helpers/cli.js';

/** The last migration before SP key pairs. */
const BEFORE = '0024_saml_logout';
const master = masterKeyFrom(Buffer.from('upgrade-test-secret-of-at-least-32-characters'));
let store: Store;
let cleanup: () => Promise<void>;
let folder: string;

beforeAll(async () => {
  // The migrations folder as the release before shipped it: its journal ends at BEFORE.
  folder = mkdtempSync(path.join(os.tmpdir(), 'assent-migrations-'));
  cpSync(path.join(ROOT, 'drizzle'), folder, { recursive: true });
  const journalFile = path.join(folder, 'meta/_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === BEFORE) + 1);
  writeFileSync(journalFile, JSON.stringify(journal));
  if (onPostgres) {
    const database = await freshPostgresDatabase({ migrated: false });
    store = openPostgres(database.url, 2);
    cleanup = () => database.drop();
  } else {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-upgrade-'));
    store = await openPglite(dir);
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  const migrate = onPostgres ? migratePg : migratePglite;
  await (migrate as (db: unknown, o: { migrationsFolder: string }) => Promise<void>)(store.db, {
    migrationsFolder: folder,
  });
}, 60_000);
afterAll(async () => {
  await store?.close();
  await cleanup?.();
  rmSync(folder, { recursive: true, force: true });
});

it('an SP key made before the upgrade stays the active signing key; a retired signing key’s stays published after it', async () => {
  const retiredKid = await rotateSigningKey(store.db, master, 86_400);
  const activeKid = await rotateSigningKey(store.db, master, 86_400);
  const [retired, active] = await Promise.all([generateSpKey('retired'), generateSpKey('active')]);
  for (const [kid, key] of [
    [retiredKid, retired],
    [activeKid, active],
  ] as const)
    await store.db.execute(
      sql`INSERT INTO saml_sp_keys (signing_kid, certificate, private_key_sealed)
          VALUES (${kid}, ${key.certificate}, ${master.seal(key.privateKey, 'saml-sp-key')})`,
    );
  await store.migrate();
  const keys = new SpKeys(store.db, master, 'upgrade.example');
  expect(await keys.current()).toEqual(active);
  expect(await keys.certificates('signing')).toEqual([active.certificate, retired.certificate]);
  expect(await keys.certificates('encryption')).toHaveLength(1); // made when first needed
});
