/**
 * Counter of the SQL statements a server sends to PostgreSQL, preloaded by the web benchmark
 * (bench/web.mjs) after the event-loop probe:
 *
 *   BENCH_PG_COUNT_FILE=/tmp/q.txt node --require ./bench/eld.cjs --require ./bench/pg-count.cjs bin/assent.cjs serve
 *
 * It wraps `pg`'s `Client.prototype.query` (every statement of the pool, of drizzle, of a
 * transaction's BEGIN and COMMIT, of a batched read, goes through it once) and, on each SIGUSR2
 * (the signal the probe's windows are marked with), appends the running total to BENCH_PG_COUNT_FILE
 * as one line, so that the benchmark can take the difference between two marks. The ES module entry
 * of `pg` re-exports the same `Client`, so the server's own imports are counted.
 *
 * CommonJS, preloaded with `--require`, for the reason bench/eld.cjs gives; loading `pg` starts no
 * thread. Without BENCH_PG_COUNT_FILE it does nothing. It changes no answer of the server.
 */
'use strict';
const { appendFileSync } = require('node:fs');

const file = process.env.BENCH_PG_COUNT_FILE;

if (file) {
  let statements = 0;
  const pg = require(require.resolve('pg', { paths: [process.cwd()] }));
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(...args) {
    statements++;
    return query.apply(this, args);
  };
  process.on('SIGUSR2', () => {
    try {
      appendFileSync(file, `${statements}\n`);
    } catch {
      // A probe must never take the server down.
    }
  });
}
