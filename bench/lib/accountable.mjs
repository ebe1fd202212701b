/**
 * Accountable administration's figures (docs/security.md, docs/audit.md), against the PostgreSQL server of the run:
 *   - password logins without and with a second factor (TOTP, codes computed by otplib as an app does): each a
 *     distinct user logged in once, `connections` at a time; plain before and after the two-step ones (drift);
 *   - the audit log's export of 100,000 entries (JSON lines and CSV): entries per second, bytes per second, and the
 *     server's resident memory during the export against before it.
 * Everything targets the server on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { generate } from 'otplib';
import pg from 'pg';
import { log, r1 } from './util.mjs';

const OWNER = { username: 'owner@acme.example', password: 'demo-owner-passphrase' };
const PASSWORD = 'bench-login-passphrase';
/** Entries the export measures (count). */
const EXPORT_ENTRIES = 100_000;

const json = async (server, path, body, token) => {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${server.base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

/** Runs `task(i)` for i in 0..count-1, `connections` at a time; answers each one's milliseconds. */
async function pool(count, connections, task) {
  const times = [];
  let next = 0;
  const one = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await task(i);
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: connections }, one));
  return times;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** Rate and latencies of `count` tasks. */
async function measured(count, connections, task) {
  const t0 = performance.now();
  const times = await pool(count, connections, task);
  const seconds = (performance.now() - t0) / 1000;
  const sorted = times.sort((a, b) => a - b);
  return { count, perSecond: r1(count / seconds), p50Ms: r1(pct(sorted, 50)), p99Ms: r1(pct(sorted, 99)) };
}

/**
 * Logins with and without a second factor.
 * @param users - distinct users per kind and run (count).
 */
export async function secondFactorLogins(server, connections, users = 300) {
  const owner = await json(server, '/v1.1/users/login', OWNER);
  const orgId = owner.body.User.Roles[0].OrgID;
  const token = owner.body.Token.access_token;
  const name = (kind, i) => `bench-${kind}-${i}@acme.example`;
  log(`${server.label}: creating ${3 * users} users for the login runs`);
  for (const kind of ['plain', 'later', 'mfa'])
    await pool(users, 4, async (i) => {
      const res = await json(
        server,
        `/v1/organizations/${orgId}/users`,
        { username: name(kind, i), password: PASSWORD },
        token,
      );
      if (res.status !== 201) throw new Error(`creating a bench user: ${res.status} ${JSON.stringify(res.body)}`);
    });
  log(`${server.label}: enrolling ${users} authenticator apps`);
  const secrets = [];
  await pool(users, 4, async (i) => {
    const login = await json(server, '/v1.1/users/login', { username: name('mfa', i), password: PASSWORD });
    const access = login.body.Token.access_token;
    const started = await json(server, '/v1/user/mfa/totp', {}, access);
    secrets[i] = started.body.Secret;
    const code = await generate({ secret: secrets[i], epoch: Math.floor(Date.now() / 1000) - 30 });
    const confirmed = await json(server, '/v1/user/mfa/totp/confirm', { code }, access);
    if (confirmed.status !== 200) throw new Error(`confirming TOTP: ${confirmed.status}`);
  });
  const plainLogin = (kind) => async (i) => {
    const res = await json(server, '/v1.1/users/login', { username: name(kind, i), password: PASSWORD });
    if (res.status !== 200) throw new Error(`plain login: ${res.status}`);
  };
  const twoStep = async (i) => {
    const first = await json(server, '/v1.1/users/login', { username: name('mfa', i), password: PASSWORD });
    if (first.status !== 401 || !first.body.mfa_token) throw new Error(`first step: ${first.status}`);
    const code = await generate({ secret: secrets[i] });
    const done = await json(server, '/v1/users/login/mfa', { mfa_token: first.body.mfa_token, code });
    if (done.status !== 200) throw new Error(`second step: ${done.status} ${JSON.stringify(done.body)}`);
  };
  const before = await measured(users, connections, plainLogin('plain'));
  const withTotp = await measured(users, connections, twoStep);
  const after = await measured(users, connections, plainLogin('later'));
  const plainRate = (before.perSecond + after.perSecond) / 2;
  log(
    `${server.label}: logins/s plain ${before.perSecond} and ${after.perSecond}, with TOTP ${withTotp.perSecond} ` +
      `(ratio ${r1((withTotp.perSecond / plainRate) * 100) / 100})`,
  );
  return {
    connections,
    users,
    plainBefore: before,
    withTotp,
    plainAfter: after,
    ratio: withTotp.perSecond / plainRate,
  };
}

/** The server child's resident memory (bytes). */
const rss = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

/** Streams a response, counting bytes and lines, sampling the server's memory; answers the figures. */
async function streamed(server, res) {
  const reader = res.body.getReader();
  let bytes = 0;
  let lines = 0;
  let peak = 0;
  for (let n = 0; ; n++) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (const b of value) if (b === 10) lines++;
    if (n % 16 === 0) peak = Math.max(peak, rss(server.child.pid));
  }
  return { bytes, lines, peakRss: peak };
}

/**
 * The export of 100,000 audit entries (written straight into the organisation's log, then sealed by a verification).
 * @param databaseUrl - the server's PostgreSQL database.
 */
export async function auditExport(server, databaseUrl) {
  const owner = await json(server, '/v1.1/users/login', OWNER);
  const orgId = owner.body.User.Roles[0].OrgID;
  const token = owner.body.Token.access_token;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // IDs after every UUIDv7 of the run, in the order of g, so that the export's order is the chain's.
  await client.query(
    `INSERT INTO org_audit_log (id, org_id, source, action, target_type, target_id, detail)
     SELECT ('ffffffff-ffff-7fff-8fff-' || lpad(to_hex(g), 12, '0'))::uuid, $1, 'import', 'purpose.update', 'purpose',
       md5(g::text), jsonb_build_object('n', g, 'note', repeat('x', 200))
     FROM generate_series(1, $2::int) g`,
    [orgId, EXPORT_ENTRIES],
  );
  await client.end();
  const url = `${server.base}/v1/organizations/${orgId}/audit-log`;
  const headers = { authorization: `Bearer ${token}` };
  let t0 = performance.now();
  const verified = await (await fetch(`${url}/verify`, { headers })).json();
  const sealSeconds = (performance.now() - t0) / 1000;
  if (!verified.Valid) throw new Error(`the audit chain does not verify: ${JSON.stringify(verified)}`);
  const out = { entries: verified.Entries, sealAndVerifySeconds: r1(sealSeconds) };
  for (const format of ['jsonl', 'csv']) {
    const before = rss(server.child.pid);
    t0 = performance.now();
    const got = await streamed(server, await fetch(`${url}/export?format=${format}`, { headers }));
    const seconds = (performance.now() - t0) / 1000;
    out[format] = {
      seconds: r1(seconds),
      entriesPerSecond: Math.round(verified.Entries / seconds),
      megabytesPerSecond: r1(got.bytes / 2 ** 20 / seconds),
      megabytes: r1(got.bytes / 2 ** 20),
      lines: got.lines,
      rssBeforeMiB: r1(before / 2 ** 20),
      rssPeakMiB: r1(got.peakRss / 2 ** 20),
    };
    log(
      `${server.label}: audit export ${format}: ${out[format].entriesPerSecond} entries/s, ` +
        `${out[format].megabytesPerSecond} MiB/s, RSS ${out[format].rssBeforeMiB} → ${out[format].rssPeakMiB} MiB`,
    );
  }
  return out;
}
