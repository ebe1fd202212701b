/**
 * (f) of the web benchmark: the floor of `GET /dashboard/consents`. The floor server
 * (web-floor-server.mjs) answers the page Assent served, prebuilt, after finding the session
 * cookie's hash in memory: no statement, no rendering. It is measured as (w) is (same client,
 * connections, warm-up and seconds), one round, after (j) and (w).
 */
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.mjs';
import { measureOne } from './consent-cannon.mjs';
import { startServer, stopServer } from './server.mjs';

const FLOOR_SERVER = fileURLToPath(new URL('./web-floor-server.mjs', import.meta.url));

/**
 * Runs (f).
 * @param page - the body `GET /dashboard/consents` answered.
 * @param cookie - the session's `Cookie` header value (`name=value`).
 * @param opts - the benchmark's options (connections, seconds, warmupSeconds).
 * @returns the run, as `measureOne` answers it.
 */
export async function floorPage(page, cookie, opts) {
  const file = path.join(os.tmpdir(), `assent-bench-web-floor-${process.pid}.html`);
  writeFileSync(file, page, { mode: 0o600 });
  onCleanup(() => rmSync(file, { force: true }));
  const server = await startServer(
    'floor-web',
    { PATH: process.env.PATH, FLOOR_PAGE_FILE: file, FLOOR_COOKIE: cookie },
    null,
    [FLOOR_SERVER],
  );
  server.eld = true;
  const spec = {
    name: '(f) floor page',
    connections: opts.connections,
    options: () => ({ path: '/dashboard/consents', headers: { cookie } }),
  };
  const run = await measureOne(server, spec, opts);
  await stopServer(server);
  return run;
}
