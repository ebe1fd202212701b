/**
 * Runs the real `assent` command (bin/assent.cjs, on the built dist/) as child processes: a serving
 * process on a fresh store, and one-shot CLI commands pointed at the same store. `npm test`
 * builds dist/ first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, freshPostgresDatabase, onPostgres, TEST_SECRET } from './assent.js';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/assent.cjs');

/** The outcome of a CLI run. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A served Assent in a child process. */
export interface ServedAssent {
  url: string;
  base: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  /** Everything the server wrote to stderr and stdout so far (for failure messages). */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  terminate(): Promise<number | null>;
  /** Kills the server with SIGKILL (a crash) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts `assent serve` again on the same store and port; waits for readiness. */
  restart(timeoutMs?: number): Promise<void>;
  /** Kills the server if still running and removes the store. */
  cleanup(): Promise<void>;
}

/** Runs `node bin/assent.cjs ...args` with `env` and collects its output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Environment of a fresh store: a PGlite data dir, or a fresh PostgreSQL database when TEST_DATABASE_URL is set. */
async function freshStoreEnv() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'assent-cli-'));
  const pgdb = onPostgres ? await freshPostgresDatabase() : undefined;
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Only what this helper sets applies: no Assent setting of the runner's own environment leaks in.
  for (const name of Object.keys(env)) if (name.startsWith('ASSENT_') || name === 'DATABASE_URL') delete env[name];
  Object.assign(env, { PORT: String(port), HOST: '127.0.0.1', ASSENT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  if (pgdb) Object.assign(env, { DATABASE_URL: pgdb.url, ASSENT_SECRET: TEST_SECRET });
  return { env, port, dataDir, pgdb };
}

/** A spawned `assent serve`. */
interface Spawned {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

function spawnServe(env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Waits for GET /readyz; rejects when the process exits first or after `timeoutMs`. */
async function waitReady(served: Spawned, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (served.child.exitCode !== null) throw new Error(`assent serve exited with ${served.child.exitCode}: ${served.output()}`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`assent serve not ready after ${timeoutMs / 1000} s: ${served.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Imports `importFile` into a fresh store with the CLI, then starts `assent serve` on it and waits
 * for GET /readyz.
 * @param extraEnv - settings for the server (and the import).
 */
export async function serveFresh(importFile: string, extraEnv: Record<string, string> = {}): Promise<ServedAssent> {
  if (!existsSync(path.join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is not built: run `npx tsc -p .` (npm test does)');
  const { env: baseEnv, port, dataDir, pgdb } = await freshStoreEnv();
  const env = { ...baseEnv, ...extraEnv };
  const imported = await runCli(['import', importFile], env);
  if (imported.code !== 0) throw new Error(`assent import failed (${imported.code}): ${imported.stderr}`);
  const url = `http://127.0.0.1:${port}`;
  let current = spawnServe(env);

  const cleanup = async () => {
    if (current.child.exitCode === null && current.child.signalCode === null) {
      current.child.kill('SIGKILL');
      await current.exited;
    }
    await pgdb?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitReady(current, url);
  } catch (err) {
    await cleanup();
    throw err;
  }

  return {
    url,
    base: `${url}/v1`,
    env,
    get child() {
      return current.child;
    },
    output: () => current.output(),
    async terminate() {
      current.child.kill('SIGTERM');
      return current.exited;
    },
    async kill() {
      current.child.kill('SIGKILL');
      await current.exited;
    },
    async restart(timeoutMs = 30_000) {
      current = spawnServe(env);
      await waitReady(current, url, timeoutMs);
    },
    cleanup,
  };
}
