/**
 * Runs the real `assent` command (`node bin/assent.cjs`, the compiled dist/; `npm test` builds it)
 * as child processes: one-shot commands (`import`, `migrate`, ...) and a long-running `serve`, each
 * on a throwaway store — a PGlite data directory, or a PostgreSQL database when TEST_DATABASE_URL
 * is set; migrated (a copy of the run's template, test/helpers/global-setup.ts) unless asked empty.
 * The one helper for spawning Assent in the suite.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { lockDataDir } from '../../src/platform/db/lock.js';
import { openPglite } from '../../src/platform/db/open.js';
import { copyPgliteTemplate, freePort, freshPostgresDatabase, onPostgres, TEST_SECRET } from './assent.js';

/** Repository root and the CLI entry point. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(ROOT, 'bin/assent.cjs');
/** The demo import file shipped with Assent. */
export const DEMO_FILE = path.join(ROOT, 'examples/demo.json');
/** The demo individual's credentials, as `DEMO_FILE` declares them (README quick start). */
export const DEMO_ALICE = { username: 'alice@acme.example', password: 'demo-alice-passphrase' };

/** The runner's own environment without any Assent setting, so that only what a test passes applies. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(base)) {
    if (name.startsWith('ASSENT_') || ['DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL'].includes(name)) delete base[name];
  }
  return { ...base, ...env };
}

/** Spawns `node bin/assent.cjs ...args`; throws a clear error when dist/ has not been built. */
function spawnAssent(args: string[], env: Record<string, string>): ChildProcess {
  if (!existsSync(path.join(ROOT, 'dist/app/cli/main.js')))
    throw new Error('dist/ is not built: run `npx tsc -p .` (npm test does)');
  // --liftoff-only, as vitest.config.ts gives the test workers: a test's `assent` lives seconds, too
  // short for V8's optimising compiler to pay back compiling PGlite's WebAssembly.
  return spawn(process.execPath, ['--liftoff-only', BIN, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** How a one-shot command ended. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/assent.cjs ...args` to completion.
 * @param env - Assent environment (ASSENT_DATA_DIR, DATABASE_URL, ...).
 * @param timeoutMs - kill the command (SIGKILL) after this long.
 */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnAssent(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A throwaway store and the environment that points the CLI at it. */
export interface TestStore {
  kind: 'pglite' | 'postgres';
  dataDir: string;
  env: Record<string, string>;
  /**
   * Runs SQL on the store. On PGlite it opens the data directory under its lock, so no `assent`
   * process may be running on it at the time.
   */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  cleanup(): Promise<void>;
}

/**
 * Creates a store: PostgreSQL when TEST_DATABASE_URL is set (unless `embedded`), else PGlite.
 * It is migrated (a copy of the run's template) unless `empty`.
 * @param opts.embedded - use the embedded store even on a PostgreSQL run.
 * @param opts.empty - no schema at all, for tests of the migration path itself.
 */
export async function freshStore(opts: { embedded?: boolean; empty?: boolean } = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-cli-'));
  const database = onPostgres && !opts.embedded ? await freshPostgresDatabase({ migrated: !opts.empty }) : undefined;
  if (!database && !opts.empty) copyPgliteTemplate(dataDir);
  const env: Record<string, string> = {
    ASSENT_DATA_DIR: dataDir,
    ASSENT_IP_DELAY_AFTER: '1000',
    ASSENT_IP_LOCK_AFTER: '2000',
  };
  if (database) Object.assign(env, { DATABASE_URL: database.url, ASSENT_SECRET: TEST_SECRET });
  return {
    kind: database ? 'postgres' : 'pglite',
    dataDir,
    env,
    async query<T>(text: string, params: unknown[] = []) {
      if (database) {
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          return (await client.query(text, params)).rows as T[];
        } finally {
          await client.end();
        }
      }
      const release = await lockDataDir(dataDir);
      const store = await openPglite(dataDir);
      try {
        const client = (store.db as unknown as { $client: { query(t: string, p: unknown[]): Promise<{ rows: T[] }> } })
          .$client;
        return (await client.query(text, params)).rows;
      } finally {
        await store.close();
        await release();
      }
    },
    async cleanup() {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Writes `content` (JSON-encoded unless a string) to a file in `dir`; returns its path. */
export function writeFile(dir: string, name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** A running `assent serve` child. */
export interface ServeProcess {
  url: string;
  base: string;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The JSON log lines (pino) that `server` has written to its standard output so far, parsed. */
export function jsonLogLines(server: ServeProcess): Array<Record<string, any>> {
  return server
    .stdout()
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/**
 * Spawns `node bin/assent.cjs serve` and waits until `GET /readyz` answers 200.
 * @param env - Assent environment; HOST is 127.0.0.1, PORT a free port unless `env` sets one.
 * @throws when the process exits or is not ready within `timeoutMs`.
 */
export async function startServe(env: Record<string, string>, timeoutMs = 60_000): Promise<ServeProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnAssent(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    }),
  );
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (done) throw new Error(`assent serve exited before it was ready:\n${stderr}\n${stdout}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`assent serve was not ready within ${timeoutMs} ms:\n${stderr}\n${stdout}`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    base: `${url}/v1`,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}

/** An `assent serve` on a store of its own, which can be crashed and started again on that store. */
export interface ServedAssent {
  url: string;
  base: string;
  /** The environment of the server (its PORT included), for CLI commands on the same store. */
  env: Record<string, string>;
  store: TestStore;
  /** The current process (a new one after `restart`). */
  readonly child: ChildProcess;
  /** Everything the current process wrote to stderr and stdout so far (for failure messages). */
  output(): string;
  /** Sends `signal` (SIGTERM by default) to the current process and waits for its exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Kills the current process with SIGKILL (a crash) and waits until it is gone. */
  kill(): Promise<void>;
  /**
   * Starts `assent serve` again on the same store and port; waits for readiness.
   * @throws when it exits first (e.g. the killed process's lock on an embedded store is not stale yet).
   */
  restart(timeoutMs?: number): Promise<void>;
  /** Kills the server if still running and removes the store. */
  cleanup(): Promise<void>;
}

/**
 * Imports `importFile` into a fresh store with `assent import`, then starts `assent serve` on it.
 * @param extraEnv - settings for the server and the import.
 * @throws when the import fails or the server is not ready (the store is removed first).
 */
export async function serveFresh(importFile: string, extraEnv: Record<string, string> = {}): Promise<ServedAssent> {
  const store = await freshStore();
  const env = { ...store.env, PORT: String(await freePort()), LOG_LEVEL: 'warn', ...extraEnv };
  let current: ServeProcess;
  try {
    const imported = await runCli(['import', importFile], env);
    if (imported.code !== 0) throw new Error(`assent import failed (${imported.code}): ${imported.stderr}`);
    current = await startServe(env);
  } catch (err) {
    await store.cleanup();
    throw err;
  }
  return {
    url: current.url,
    base: current.base,
    env,
    store,
    get child() {
      return current.child;
    },
    output: () => current.stderr() + current.stdout(),
    stop: (signal) => current.stop(signal),
    async kill() {
      await current.stop('SIGKILL');
    },
    async restart(timeoutMs = 30_000) {
      current = await startServe(env, timeoutMs);
    },
    async cleanup() {
      await current.stop('SIGKILL');
      await store.cleanup();
    },
  };
}
