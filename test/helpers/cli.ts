/**
 * Runs the real `assent` command (`node bin/assent.cjs`, the compiled dist/) as child processes:
 * one-shot commands (`import`, `migrate`, ...) and a long-running `serve`, each on a throwaway
 * store — a fresh PGlite data directory, or a fresh PostgreSQL database when TEST_DATABASE_URL is set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { lockDataDir } from '../../src/db/lock.js';
import { openPglite } from '../../src/db/open.js';
import { freePort, freshPostgresDatabase, onPostgres, TEST_SECRET } from './assent.js';

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
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
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
 * Creates an empty store: PostgreSQL when TEST_DATABASE_URL is set (unless `embedded`), else PGlite.
 * @param opts.embedded - use the embedded store even on a PostgreSQL run.
 */
export async function freshStore(opts: { embedded?: boolean } = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-cli-'));
  const database = onPostgres && !opts.embedded ? await freshPostgresDatabase() : undefined;
  const env: Record<string, string> = { ASSENT_DATA_DIR: dataDir, ASSENT_IP_DELAY_AFTER: '1000', ASSENT_IP_LOCK_AFTER: '2000' };
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
        const client = (store.db as unknown as { $client: { query(t: string, p: unknown[]): Promise<{ rows: T[] }> } }).$client;
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

/**
 * Spawns `node bin/assent.cjs serve` on a free port and waits until `GET /readyz` answers 200.
 * @param env - Assent environment; PORT and HOST are set here.
 * @throws when the process exits or is not ready within `timeoutMs`.
 */
export async function startServe(env: Record<string, string>, timeoutMs = 60_000): Promise<ServeProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
