/**
 * The floor server of the wallet benchmark (f): a plain `node:http` server with one endpoint doing
 * only the unavoidable work of a verified `direct_post.jwt` response, so that its rate under (b)'s
 * storm is the most a response endpoint can reach on this machine:
 *   - the form body read and parsed;
 *   - ONE database round trip that no correct verifier can avoid: the transaction taken for single
 *     use (`UPDATE … WHERE id = $1 AND status = 'request_fetched' RETURNING …`, autocommit, one
 *     named statement on a `pg` pool), which also returns its sealed key, nonce and state;
 *   - the verifier's own work as in (a2) (wallet-verifier.mjs: decrypt, parameters, vp_token).
 * Started as a child like the real server, with the event-loop probe preloaded:
 *
 *   FLOOR_WALLET=<json file of sharedOf()> DATABASE_URL=<url> node --require ./bench/eld.cjs bench/lib/wallet-floor-server.mjs
 *
 * Answers 200 `{"redirect_uri"}` once verified, 400 `{"error"}` otherwise. `GET /readyz` answers
 * 200 once listening. SIGTERM closes the server and exits 0.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { serveFloor } from './floor-http.mjs';
import { loadVerifier } from './wallet-verifier.mjs';

const shared = JSON.parse(readFileSync(process.env.FLOOR_WALLET, 'utf8'));
const verify = await loadVerifier(shared);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

/** The transaction of `kid`, taken for single use in one statement, or null. */
async function take({ kid }) {
  if (!kid) return null;
  const { rows } = await pool.query({
    name: 'floor_take',
    text:
      "UPDATE bench_floor_tx SET status = 'verified' WHERE id = $1 AND status = 'request_fetched' " +
      'RETURNING id, enc_key_sealed, vp_state, nonce, expires_at',
    values: [kid],
  });
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    encKid: row.id,
    encKeySealed: row.enc_key_sealed,
    vpState: row.vp_state,
    nonce: row.nonce,
    expiresAt: row.expires_at,
    status: 'request_fetched',
    settings: shared.settings,
  };
}

serveFloor(
  (body) => verify(body, take).then(() => ({ status: 200, body: { redirect_uri: 'http://127.0.0.1/' } })),
  400,
  pool,
);
