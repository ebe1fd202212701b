/** Small helpers shared by the benchmark modules: logging, rounding, local-only checks, the CLI. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { HOST, RESULTS_DIR, ROOT } from './config.mjs';

const t0 = Date.now();

/** Seconds since the benchmark started (module load). */
export const elapsedSeconds = () => (Date.now() - t0) / 1000;

export function log(message) {
  const s = elapsedSeconds().toFixed(1).padStart(6);
  console.log(`[${s}s] ${message}`);
}

export const r1 = (x) => (x == null ? null : Math.round(x * 10) / 10);
export const r2 = (x) => (x == null ? null : Math.round(x * 100) / 100);
export const load = () => os.loadavg().map((x) => r2(x));

/** The machine a run is on: CPU model, cores, Node, OS, memory (GiB) and the load average at the start. */
export function machineFacts() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    totalMemGiB: r1(os.totalmem() / 2 ** 30),
    loadAvgStart: load(),
  };
}

export function redact(url) {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

export function assertLocal(url, what) {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host))
    throw new Error(`${what} must point at this machine (127.0.0.1), got ${host}`);
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Runs the CLI to completion (import, migrate); throws with its output when it fails. */
export function runCli(args, env, timeoutMs = 60_000) {
  const res = spawnSync(process.execPath, ['bin/assent.cjs', ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  if (res.status !== 0)
    throw new Error(
      `assent ${args.join(' ')} failed (status ${res.status}, signal ${res.signal}):\n${res.stderr}${res.stdout}`,
    );
  return res.stdout;
}

/**
 * Writes a run's results with its printed summary to bench/results/<name>, prints the summary and
 * logs where it went.
 */
export function publish(name, results, summary) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, name);
  writeFileSync(file, `${JSON.stringify({ ...results, summary }, null, 2)}\n`);
  console.log(`\n${summary}\n`);
  log(`wrote ${path.relative(ROOT, file)} (${r1(process.uptime())} s)`);
}
