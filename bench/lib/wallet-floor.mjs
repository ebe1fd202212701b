/**
 * (f) of the wallet benchmark: the floor of `POST …/oid4vp/response`. The floor server
 * (wallet-floor-server.mjs) does only the unavoidable work of a verified response — the body
 * parsed, one single-use UPDATE … RETURNING on the bench database, the verifier's own library work
 * of (a2) — and is stormed by (b)'s client (wallet-measures.mjs `post`) with the same warm-up,
 * count and connections. Its transactions are rows of `bench_floor_tx`, created in the bench
 * database beforehand (dropped with it).
 */
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { onCleanup } from './cleanup.mjs';
import { cpuSnapshot, cpuWindow } from './cpu.mjs';
import { eldMark, serverThreadPool, startServer, stopServer } from './server.mjs';
import { summarise } from './storms.mjs';
import { log } from './util.mjs';
import { post } from './wallet-measures.mjs';
import { makeCases } from './wallet-verifier.mjs';

const FLOOR_SERVER = fileURLToPath(new URL('./wallet-floor-server.mjs', import.meta.url));

/** Creates `bench_floor_tx` and inserts `rows` (wallet-verifier.mjs `makeCases`). */
async function insertRows(url, rows) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      'CREATE TABLE IF NOT EXISTS bench_floor_tx (id text PRIMARY KEY, status text NOT NULL, ' +
        'enc_key_sealed text NOT NULL, vp_state text NOT NULL, nonce text NOT NULL, expires_at timestamptz NOT NULL)',
    );
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const values = chunk.map(
        (_, j) => `($${j * 5 + 1}, 'request_fetched', $${j * 5 + 2}, $${j * 5 + 3}, $${j * 5 + 4}, $${j * 5 + 5})`,
      );
      await client.query(
        `INSERT INTO bench_floor_tx (id, status, enc_key_sealed, vp_state, nonce, expires_at) VALUES ${values.join(', ')}`,
        chunk.flatMap((r) => [r.id, r.encKeySealed, r.vpState, r.nonce, r.expiresAt]),
      );
    }
    await client.query('ANALYZE bench_floor_tx');
  } finally {
    await client.end();
  }
}

/**
 * Runs (f): prepares `warmup` + `count` transactions and responses, starts the floor server on the
 * bench database, posts the warm-up, then measures `count` at `connections`.
 * @param env - the server environment (its DATABASE_URL is the bench database).
 * @param dbName - the bench database, whose backends count as the floor's in the CPU split.
 * @returns the storm's figures (as (b)), the floor's event-loop delay and CPU split.
 */
export async function floorRate(env, dbName, shared, credentials, holderPrivate, { count, warmup, connections }) {
  const warm = await makeCases(shared, credentials, holderPrivate, warmup);
  const measured = await makeCases(shared, credentials, holderPrivate, count);
  await insertRows(env.DATABASE_URL, [...warm.rows, ...measured.rows]);
  const file = path.join(os.tmpdir(), `assent-bench-wallet-floor-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(shared), { mode: 0o600 });
  onCleanup(() => rmSync(file, { force: true }));
  const floorEnv = { ...env, FLOOR_WALLET: file, UV_THREADPOOL_SIZE: serverThreadPool() };
  const server = await startServer('floor-wallet', floorEnv, dbName, [FLOOR_SERVER]);
  const uri = `${server.base}/response`;
  log(`floor: warm-up, ${warmup} presentations`);
  await post(uri, warm.bodies, connections);
  await eldMark(server);
  log(`floor: ${count} presentations at ${connections} connections`);
  const cpu0 = cpuSnapshot(server.child.pid, dbName);
  const result = summarise(await post(uri, measured.bodies, connections));
  const cpu = cpuWindow(cpu0, cpuSnapshot(server.child.pid, dbName));
  const eld = await eldMark(server);
  const shutdown = await stopServer(server);
  log(
    `floor:   ${result.okPerSecond} verified/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ` +
      `non-2xx ${result.non2xx}`,
  );
  return { ...result, eventLoopDelayMs: eld, cpuCores: cpu, shutdown };
}
