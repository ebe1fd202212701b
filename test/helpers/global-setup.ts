/**
 * Vitest global set-up: migrates one store of each kind once per run, from empty, so that each test
 * file starts from a copy instead of creating a database and running every migration itself.
 *
 * - PGlite (on a PGlite run): a data directory created and migrated here; a test file copies its
 *   `pgdata` (`copyPgliteTemplate`). Opening an empty PGlite directory runs initdb (seconds); opening a copy
 *   does not.
 * - PostgreSQL (when TEST_DATABASE_URL is set): a database migrated here, then marked a template;
 *   a test file's database is `CREATE DATABASE x TEMPLATE <it>` (`freshPostgresDatabase`).
 *
 * Migrating from an empty store is thereby exercised on every run, and again by the CLI's
 * `assent migrate` test (test/cli.test.ts), which starts from an empty store on purpose.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../../src/platform/db/open.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite `pgdata` directory that test files copy (absolute path); empty on a PostgreSQL run. */
    pgliteTemplate: string;
    /** The migrated PostgreSQL template database's name; empty on a PGlite run. */
    postgresTemplate: string;
  }
}

/** Migrates an empty PGlite data directory; returns the directory. */
async function migratedPglite(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-template-'));
  const store = await openPglite(dir);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  return dir;
}

/** Runs `sql` on the TEST_DATABASE_URL server's maintenance database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates and migrates a template database on TEST_DATABASE_URL's server; returns its name. */
async function migratedPostgres(): Promise<string> {
  // Unique per run: other runs on the same server (other worktrees) keep their own template.
  const name = `assent_tmpl_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const store = openPostgres(url.toString(), 1);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  // No connection may stay open on a template while CREATE DATABASE copies it.
  await admin(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  return name;
}

/**
 * Builds the templates and hands their locations to the test files (`inject`).
 * @returns the teardown, which removes both.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // On a PostgreSQL run the few embedded stores (test/cli.test.ts) start empty, as a server's first
  // start does: one PGlite initdb here would cost more than it saves.
  const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
  const [pgliteDir, postgresName] = await Promise.all([
    onPostgres ? '' : migratedPglite(),
    onPostgres ? migratedPostgres() : '',
  ]);
  project.provide('pgliteTemplate', pgliteDir && path.join(pgliteDir, 'pgdata'));
  project.provide('postgresTemplate', postgresName);
  return async () => {
    if (pgliteDir) rmSync(pgliteDir, { recursive: true, force: true });
    if (postgresName) {
      await admin(`ALTER DATABASE ${postgresName} WITH IS_TEMPLATE false`);
      await admin(`DROP DATABASE IF EXISTS ${postgresName} WITH (FORCE)`);
    }
  };
}
