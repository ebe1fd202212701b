/**
 * The floor servers of the login storm (bench/lib/floor.mjs): plain `node:http` servers that do
 * only what no login can do without, so that their rate under the same storm is the most a login
 * endpoint on this machine can reach. Started as a child, like the real server, with the
 * event-loop probe preloaded:
 *
 *   FLOOR_MODE=verify   FLOOR_PHC=<phc>        node --require ./bench/eld.cjs bench/lib/floor-server.mjs
 *   FLOOR_MODE=database DATABASE_URL=<url>     node --require ./bench/eld.cjs bench/lib/floor-server.mjs
 *
 * Every POST body is `{"username", "password"}`; the answer is 200 `{"ok":true}` or 401.
 * - `verify`: argon2id verification of the password against FLOOR_PHC, nothing else.
 * - `database`: the password hash read by username (one named statement on a `pg` pool), the
 *   verification, then `last_visit_at` written (a second statement, hence a commit), i.e. the
 *   fewest round trips a login that records anything can make. It reads Assent's `users` table
 *   of the imported demo.
 * `GET /readyz` answers 200 once listening. SIGTERM closes the server and exits 0.
 */

import { verify } from '@node-rs/argon2';
import pg from 'pg';
import { serveFloor } from './floor-http.mjs';

const mode = process.env.FLOOR_MODE;
if (mode !== 'verify' && mode !== 'database') throw new Error(`FLOOR_MODE must be verify or database, got ${mode}`);
const pool = mode === 'database' ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }) : null;

/** The stored hash and user ID of `username`, or null. */
async function lookup(username) {
  if (!pool) return { id: null, hash: process.env.FLOOR_PHC };
  const { rows } = await pool.query({
    name: 'floor_lookup',
    text: 'SELECT id, password_hash FROM users WHERE username = $1',
    values: [username],
  });
  return rows[0] ? { id: rows[0].id, hash: rows[0].password_hash } : null;
}

async function login(body) {
  const { username, password } = JSON.parse(body);
  const user = await lookup(username);
  if (!user || !(await verify(user.hash, password))) return false;
  if (pool)
    await pool.query({
      name: 'floor_visit',
      text: 'UPDATE users SET last_visit_at = now() WHERE id = $1',
      values: [user.id],
    });
  return true;
}

serveFloor((body) => login(body).then((ok) => ({ status: ok ? 200 : 401, body: { ok } })), 500, pool);
