/**
 * Opens the store: the embedded PGlite in `ASSENT_DATA_DIR`, or a real PostgreSQL through `pg`
 * when `DATABASE_URL` is set. Both run the same Drizzle queries and the same migrations.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgDialect, PgQueryResultHKT, PgSession } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { SharedListener } from './listener.js';
import * as schema from './schema/index.js';
import { CONNECT_TIMEOUT_MS } from './unavailable.js';

/** The Drizzle database handle shared by every store module, whichever driver is behind it. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** A transaction handle or the database itself: store functions accept either. */
export type Executor = Pick<Db, 'select' | 'selectDistinctOn' | 'insert' | 'update' | 'delete' | 'execute'>;

/**
 * The rows of a raw `db.execute` result; PGlite and node-postgres both answer `{ rows }`.
 * @param result - what `db.execute` resolved to.
 */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * Memoises what `build` makes from a database handle (a prepared statement, typically), once per
 * handle: statements are prepared against the root handle, never a transaction.
 * @param build - makes the value from the handle.
 * @returns a function giving the handle's value, built on first use.
 */
export function perDb<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let value = cache.get(db);
    if (value === undefined) {
      value = build(db);
      cache.set(db, value);
    }
    return value;
  };
}

/** A raw statement prepared with `sql.placeholder` parameters. */
export interface PreparedRaw {
  /**
   * Runs the statement.
   * @param values - one value per placeholder name.
   * @returns the driver's result; read it with `rowsOf`.
   */
  execute(values: Record<string, unknown>): Promise<unknown>;
}

/** The handle each root handle's named statements run on (`statementHandle`); absent = itself. */
const statementHandles = new WeakMap<Db, Db>();

/**
 * The handle that named statements of `db` are prepared on. On PostgreSQL it is a second pool whose
 * sessions run every named statement with its generic plan (`plan_cache_mode = force_generic_plan`),
 * planned once per connection; on PGlite it is `db` itself.
 *
 * Why: in the default `auto` mode PostgreSQL keeps re-planning a named statement whenever its
 * generic plan is costed above the custom ones. The consented-user pages' generic plans do not know
 * their LIMIT or how many attributes count, so they were re-planned on every call: 0.3 ms of
 * planning on a 0.3 ms page (bench/consents.mjs: pages at 16 connections 1210-1400/s, p99 19-24 ms,
 * against 2050-2200/s, p99 13-14 ms, on the generic plans its EXPLAIN checks are O(limit)).
 * Unnamed statements stay on `db`, in `auto` mode, planned with their parameter values.
 * @param db - a root handle from `openPostgres` or `openPglite`.
 */
export function statementHandle(db: Db): Db {
  return statementHandles.get(db) ?? db;
}

/**
 * Prepares a raw SQL statement (a hot path the query builder cannot express). On PostgreSQL it is
 * a named statement on `statementHandle(db)`, parsed and planned once per pooled connection instead
 * of on every call.
 * @param db - the root handle (not a transaction).
 * @param name - the statement name, unique in the process.
 * @param query - SQL whose parameters are `sql.placeholder(name)`s.
 */
export function prepareRaw(db: Db, name: string, query: SQL): PreparedRaw {
  // Drizzle's `db.execute` cannot name a statement; its session can (the same path `.prepare(name)` takes).
  const { session, dialect } = statementHandle(db) as unknown as { session: PgSession; dialect: PgDialect };
  return session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
}

/** An open store. */
export interface Store {
  /** The query builder. */
  db: Db;
  /** `pglite` for the embedded store, `postgres` for `DATABASE_URL`. */
  kind: 'pglite' | 'postgres';
  /** Applies pending migrations from `drizzle/`; safe to call from several processes on PostgreSQL. */
  migrate(): Promise<void>;
  /**
   * Runs `create` while holding the migration lock, so that what a process creates at start
   * (the job queue's schema, the first signing key) is created by one process at a time; replicas
   * started together wait for each other instead of racing on the catalogue. On PGlite (one
   * process) it just runs `create`. Do not call `migrate` or `exclusively` from inside `create`:
   * the lock is held on another connection, so that would wait forever.
   * @returns what `create` resolves to.
   * @throws what `create` throws, or the connection error when the lock cannot be taken.
   */
  exclusively<T>(create: () => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Runs raw SQL outside Drizzle, for libraries that bring their own SQL (the pg-boss job queue).
   * Without `values` the text may hold several statements; the last one's rows are answered.
   * @param text - SQL with `$1`… parameters.
   * @param values - parameter values.
   */
  raw(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /**
   * Calls `onNotify` with the payload of each PostgreSQL NOTIFY on `channel` (from any process on
   * PostgreSQL, on one connection shared by all channels of the store). `onLost` is called once if
   * that connection breaks; nothing more arrives.
   * @returns a function that stops listening.
   * @throws the connection error when the listener cannot connect.
   */
  listen(channel: string, onNotify: (payload: string) => void, onLost?: () => void): Promise<() => Promise<void>>;
  /** Closes connections (and the PGlite instance). */
  close(): Promise<void>;
}

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../drizzle');

/** Arbitrary constant for `pg_advisory_lock`, serialising migrations of concurrent starts. */
const MIGRATION_LOCK = 727_001;

/**
 * Opens PostgreSQL at `url` with a connection pool.
 *
 * @param url - a `postgres://` connection string.
 * @param poolSize - maximum connections of each of the two pools, the one for named statements
 *   (`statementHandle`) and the one for everything else (count; `ASSENT_DB_POOL_SIZE`, default 10). A request
 *   that finds them all busy waits in the pool's FIFO queue, which is fairer and cheaper than more
 *   backends competing for the database server's cores (measured in bench/consents.mjs).
 * @throws pg connection errors only when the first query runs (the pool connects lazily).
 */
export function openPostgres(url: string, poolSize = 10): Store {
  // No JIT: every statement here is a short lookup, and a named statement's generic plan (which
  // does not know its LIMIT) can be costed above jit_above_cost, adding 10 to 50 ms of compilation
  // to a 0.3 ms page on every execution (seen in bench/consents.mjs's EXPLAIN).
  const newPool = (applicationName: string, options: string) => {
    const created = new pg.Pool({
      connectionString: url,
      max: poolSize,
      options: `-c jit=off ${options}`.trim(),
      application_name: applicationName,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // A dropped idle connection must not crash the process; the pool replaces it.
    created.on('error', () => {});
    // Threat: a session killed or a server restarted while a client is checked out (a transaction,
    // between its statements) emits 'error' on that client, which without a listener of its own ends
    // the process. The statement under way rejects with the error anyway (answered 503, see
    // src/platform/db/unavailable.ts), and pg-pool discards the broken client when it is released.
    created.on('connect', (client) => client.on('error', () => {}));
    return created;
  };
  const pool = newPool('assent', '');
  // The named statements' pool (see `statementHandle`); its connections open only when used.
  const statementPool = newPool('assent-named-statements', '-c plan_cache_mode=force_generic_plan');
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  statementHandles.set(db, drizzlePg(statementPool, { schema }) as unknown as Db);
  // One LISTEN connection for every channel of the process, outside the pool (src/platform/db/listener.ts).
  const listener = new SharedListener(url);
  // Threat: two replicas started together racing on the catalogue (duplicate pg_namespace entries,
  // deadlocks) and one of them exiting; a session advisory lock lets one creator in at a time.
  const locked = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      return await work(client);
    } catch (err) {
      broken = err as Error;
      throw err;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
      // A connection that failed is discarded rather than handed to the next query.
      client.release(broken);
    }
  };
  return {
    db,
    kind: 'postgres',
    migrate: () => locked(async (client) => migratePg(drizzlePg(client, { schema }), { migrationsFolder })),
    exclusively: (create) => locked(create),
    async ping() {
      await db.execute(sql`SELECT 1`);
    },
    raw: (text, values) => pool.query(text, values),
    listen: (channel, onNotify, onLost) => listener.listen(channel, onNotify, onLost),
    async close() {
      await listener.close();
      await Promise.all([pool.end(), statementPool.end()]);
    },
  };
}

/**
 * Opens the embedded PGlite store in `dir/pgdata`. The caller must hold the data-directory lock
 * (see `lock.ts`): PGlite is single-process and two writers would corrupt it.
 *
 * @param dir - the data directory (absolute path); created if absent.
 */
export async function openPglite(dir: string): Promise<Store> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const client = await PGlite.create(path.join(dir, 'pgdata'));
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async migrate() {
      await migratePglite(drizzlePglite(client, { schema }), { migrationsFolder });
    },
    // One process holds the data directory (lock.ts): nobody can create anything concurrently.
    exclusively: (create) => create(),
    async ping() {
      await client.query('SELECT 1');
    },
    async raw(text, values) {
      if (values && values.length > 0) return client.query(text, values);
      // PGlite's extended protocol takes one statement; a parameterless script goes through exec.
      const results = await client.exec(text);
      return results.at(-1) ?? { rows: [] };
    },
    async listen(channel, onNotify) {
      // In-process: the listener cannot be lost while the store is open.
      const unlisten = await client.listen(channel, (payload) => onNotify(payload ?? ''));
      return async () => {
        // After `close` there is nothing left to unlisten (and PGlite would throw "PGlite is closed").
        if (!client.closed) await unlisten().catch(() => {});
      };
    },
    async close() {
      await client.close();
    },
  };
}

/** A pg-boss `db` option: raw SQL on a given connection or transaction. */
export interface RawExecutor {
  /** Runs one statement. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * Raw SQL inside a Drizzle transaction, so that a library (pg-boss) can write in the same
 * transaction as Assent: both commit, or neither does. Both drivers' transaction sessions hold a
 * client whose `query(text, values)` answers `{ rows }` (a pg PoolClient, a PGlite Transaction).
 * @param tx - the transaction handle given by `db.transaction`.
 */
export function rawIn(tx: Executor): RawExecutor {
  const { client } = (
    tx as unknown as { session: { client: { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> } } }
  ).session;
  return { executeSql: (text, values) => client.query(text, values) };
}
