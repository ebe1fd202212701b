/**
 * SQL statements per request of the web benchmark (PostgreSQL only), read from the counter that
 * bench/pg-count.cjs keeps in the server: one running total per event-loop-probe mark (SIGUSR2),
 * so the statements of a measured run are the difference between its two marks. Counted: every
 * statement the server sent in that window (a transaction's BEGIN and COMMIT each count, a batched
 * read counts once for all its reads, the server's background work counts too).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { onCleanup } from './cleanup.mjs';
import { eldMark } from './server.mjs';
import { assertLocal, r2 } from './util.mjs';

/** The preload's arguments and the file it writes (removed at cleanup). */
export function statementCounter() {
  const file = path.join(os.tmpdir(), `assent-bench-pg-count-${process.pid}-${Date.now()}.txt`);
  onCleanup(() => rmSync(file, { force: true }));
  const totals = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);
  return {
    file,
    preload: ['--require', './bench/pg-count.cjs'],
    /**
     * Statements between the last two marks, waiting (up to 5 s) for the `marks`-th total: the
     * counter writes just after the probe, in the same signal.
     */
    async lastWindow(marks) {
      for (let i = 0; i < 250; i++) {
        const t = totals();
        if (t.length >= marks) return t[marks - 1] - t[marks - 2];
        await sleep(20);
      }
      throw new Error(`the statement counter wrote no total for mark ${marks}`);
    },
  };
}

/**
 * Statements per request with each request sent alone, one after another (no read shares a batch):
 * a mark, `count` sequential requests of each kind, a mark.
 * @param marks - marks sent so far; two more are sent per kind.
 * @returns `{perRequest: {kind: statements}, marks}`.
 */
export async function statementsAlone(server, counter, marks, requests, count = 100) {
  assertLocal(server.base, 'server URL');
  const perRequest = {};
  for (const [kind, { path: p, headers }] of Object.entries(requests)) {
    await eldMark(server);
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${server.base}${p}`, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${kind}: ${p} answered ${res.status} while counting statements`);
    }
    await eldMark(server);
    marks += 2;
    perRequest[kind] = r2((await counter.lastWindow(marks)) / count);
  }
  return { perRequest, marks };
}
