/**
 * Constants and the BENCH_* options of the benchmark (see bench/README.md, "Settings").
 * Parsed once, at import; an invalid value throws before anything is started.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
export const DEMO_FILE = path.join(ROOT, 'examples', 'demo.json');
export const HOST = '127.0.0.1';
export const USER = { username: 'alice@acme.example', password: 'demo-alice-passphrase' };
export const CLIENT_ID = 'igrant-ios-app';
/** Keycloak's documented sizing: logins/s and refreshes/s per vCPU. */
export const KEYCLOAK_PER_VCPU = { logins: 15, refreshes: 120 };
export const GOALS = { loginToVerify: 0.85, eldP99Ms: 50, refreshPerSecond: 1500 };
/** Login timing (4b): "indistinguishable" needs |median difference| below this and p above `alpha`. */
export const TIMING_CRITERION = { maxMedianDiffPercent: 5, alpha: 0.01 };

/** An integer BENCH_* option (also read by consent-config.mjs); throws on a bad value. */
export function envInt(name, fallback, min = 1) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

export const opts = {
  verifySeconds: envInt('BENCH_VERIFY_SECONDS', 10),
  stormSeconds: envInt('BENCH_STORM_SECONDS', 15),
  warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 3),
  loginConnections: envInt('BENCH_LOGIN_CONNECTIONS', 8),
  refreshConnections: envInt('BENCH_REFRESH_CONNECTIONS', 32),
  timingRequests: envInt('BENCH_TIMING_REQUESTS', 150, 2),
  timingWarmup: envInt('BENCH_TIMING_WARMUP', 20, 0),
  deadlineSeconds: envInt('BENCH_DEADLINE_SECONDS', 300),
  pgAdminUrl: process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  skipBuild: process.env.BENCH_SKIP_BUILD === '1',
  skipPglite: process.env.BENCH_SKIP_PGLITE === '1',
};
