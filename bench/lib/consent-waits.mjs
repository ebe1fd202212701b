/**
 * What the server's PostgreSQL backends were doing during a measured run: pg_stat_activity of the
 * bench database sampled every 100 ms (active backends only, this sampler excluded), averaged into
 * "backends running" and "backends waiting on <wait_event_type>:<wait_event>". Lock waits while
 * every connection writes its own record point at a row all writers share (the chain head).
 */
import pg from 'pg';
import { opts } from './config.mjs';
import { r2 } from './util.mjs';

const SAMPLE = `SELECT coalesce(wait_event_type || ':' || wait_event, 'running') AS w,
    CASE WHEN wait_event_type = 'Lock' THEN left(regexp_replace(query, '\\s+', ' ', 'g'), 70) END AS q,
    count(*)::int AS n
  FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()
  GROUP BY 1, 2`;

/**
 * Starts sampling the backends of database `dbName`.
 * @returns `{stop()}`; stop resolves to `{samples, activeBackends, byState, waitingOnLocks, walBytes}` (averages per
 *   sample; waitingOnLocks by the first 70 characters of the statement that waits; walBytes: the write-ahead log
 *   written meanwhile by the whole cluster, bytes, which on this machine is the bench database's).
 */
export async function startWaitSampler(dbName) {
  const url = new URL(opts.pgAdminUrl);
  url.pathname = `/${dbName}`;
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => {}); // a lost sampler only loses samples
  await client.connect();
  const walStart = (await client.query('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0].lsn;
  const totals = new Map();
  const lockWaiters = new Map();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const { rows } = await client.query(SAMPLE);
        samples++;
        for (const { w, q, n } of rows) {
          totals.set(w, (totals.get(w) ?? 0) + n);
          if (q) lockWaiters.set(q, (lockWaiters.get(q) ?? 0) + n);
        }
      } catch {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      const walBytes = await client
        .query('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1)::bigint AS n', [walStart])
        .then((r) => Number(r.rows[0].n))
        .catch(() => null);
      await client.end().catch(() => {});
      const byState = Object.fromEntries(
        [...totals].sort((a, b) => b[1] - a[1]).map(([w, n]) => [w, r2(n / Math.max(1, samples))]),
      );
      const activeBackends = r2([...totals.values()].reduce((a, b) => a + b, 0) / Math.max(1, samples));
      const waitingOnLocks = Object.fromEntries(
        [...lockWaiters].sort((a, b) => b[1] - a[1]).map(([q, n]) => [q, r2(n / Math.max(1, samples))]),
      );
      return { samples, activeBackends, byState, waitingOnLocks, walBytes };
    },
  };
}

/** One line: "2.1 active: running 0.9, Lock:transactionid 1.0, …". */
export function describeWaits(w) {
  if (!w) return 'no samples';
  const locks = Object.entries(w.waitingOnLocks ?? {});
  return (
    `${w.activeBackends} active backends on average: ${Object.entries(w.byState)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}` +
    (locks.length
      ? `; waiting on locks: ${locks
          .slice(0, 3)
          .map(([q, v]) => `${v} in "${q}"`)
          .join(', ')}`
      : '')
  );
}

/**
 * "WAL 182.4 MiB, 7,650 bytes per 2xx" for a measured run with a sampler (consent-cannon.mjs `measureOne`), or null.
 * @param storm - `measureOne`'s result.
 */
export function describeWal(storm) {
  const bytes = storm.postgresWaits?.walBytes;
  if (bytes === null || bytes === undefined) return null;
  const ok = (storm.okPerSecond * (storm.windowMs.finish - storm.windowMs.start)) / 1000;
  return `WAL ${r2(bytes / 1048576)} MiB, ${Math.round(bytes / Math.max(1, ok)).toLocaleString('en')} bytes per 2xx`;
}
