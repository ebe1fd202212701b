/**
 * Fuzz of the whole API, driven by /openapi.json: for every operation and every parameter (path,
 * query, body field), and for the body as a whole, malformed values (wrong types, huge strings,
 * NUL and control characters, deep nesting, odd Unicode, bad percent-encoding, SQL/JSON
 * metacharacters, extreme numbers, empty and missing values, wrong Content-Type), sent as an
 * anonymous caller, an individual and an organisation Owner. Asserts: no answer ≥ 500, every
 * error is `{"Code", "Message"}` JSON (docs/api.md "Responses"), the anonymous caller changes
 * nothing, and the individual changes nothing but their own data. Bounded (a few thousand requests), seeded (FUZZ_SEED
 * to replay; the seed is printed).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { organisationsWithUnsequenced } from '../src/platform/events/numbering.js';
import { login, startAssent, type TestAssent } from './helpers/assent.js';
import { BAD_BODIES, BAD_STRINGS, BAD_VALUES, pick, prng, sample } from './helpers/fuzz.js';

let t: TestAssent;
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = prng(seed);

beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

/**
 * Tables an anonymous caller may legitimately change: failed-login counters and rate-limit windows
 * (every failed login and forgotten-password request counts), reset tokens (a forgotten-password
 * request), federation states (starting a federated login), WebAuthn challenges (starting a passkey sign-in).
 */
const ANONYMOUS_MAY_CHANGE = new Set([
  'login_throttle',
  'rate_limits',
  'password_reset_tokens',
  'federation_states',
  'webauthn_challenges',
]);

/** A digest of every other table of the public schema: one md5 per table over its rows as text. */
async function digest(): Promise<Record<string, string>> {
  const tables = rowsOf<{ name: string }>(
    await t.store.db.execute(
      sql`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
    ),
  )
    .map((r) => r.name)
    .filter((name) => !ANONYMOUS_MAY_CHANGE.has(name));
  const out: Record<string, string> = {};
  for (const name of tables) {
    const [row] = rowsOf<{ d: string | null; n: number }>(
      await t.store.db.execute(
        sql.raw(
          `SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS d, count(*)::int AS n
           FROM "${name}" x`,
        ),
      ),
    );
    out[name] = `${row?.n}:${row?.d}`;
  }
  return out;
}

/**
 * Tables an individual may change beyond rows of their own (those with their `user_id`, their
 * `users` row, and the organisation events whose `subject` they are): the sealing of their own
 * consent events (queue, seals, chain heads, which carry no user), the numbering of their own
 * organisation events (the feed's head, which carries no user) and refresh tokens (carried by their
 * own sessions' families).
 */
const INDIVIDUAL_MAY_CHANGE = new Set([
  ...ANONYMOUS_MAY_CHANGE,
  'consent_event_queue',
  'consent_event_seals',
  'consent_chain_heads',
  'organisation_event_heads',
  'refresh_tokens',
]);

/** The column naming the individual a row belongs to, in tables where it is not `user_id`. */
const OWNER_COLUMN: Record<string, string> = { users: 'id', organisation_events: 'subject' };

/**
 * A digest of everything that is not the individual's own: every table but those above, and of a
 * table with a `user_id` column (or `users` itself) only the rows of other users.
 * @param userId - the individual.
 */
async function othersDigest(userId: string): Promise<Record<string, string>> {
  const columns = rowsOf<{ t: string; c: string }>(
    await t.store.db.execute(sql`SELECT c.table_name AS t, c.column_name AS c
      FROM information_schema.columns c JOIN information_schema.tables x USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND x.table_type = 'BASE TABLE' ORDER BY 1, 2`),
  );
  const tables = [...new Set(columns.map((r) => r.t))].filter((name) => !INDIVIDUAL_MAY_CHANGE.has(name));
  const out: Record<string, string> = {};
  for (const name of tables) {
    const userColumn =
      OWNER_COLUMN[name] ?? (columns.some((r) => r.t === name && r.c === 'user_id') ? 'user_id' : undefined);
    const where = userColumn ? ` WHERE x.${userColumn}::text IS DISTINCT FROM '${userId}'` : '';
    const [row] = rowsOf<{ d: string | null; n: number }>(
      await t.store.db.execute(
        sql.raw(
          `SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS d, count(*)::int AS n
           FROM "${name}" x${where}`,
        ),
      ),
    );
    out[name] = `${row?.n}:${row?.d}`;
  }
  return out;
}

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; schema?: any }[];
  body?: any;
}

/**
 * Operations an authenticated fuzz caller skips, because sending them with well-formed parts would
 * legitimately end the caller's session or delete data the later requests use: every DELETE,
 * logout, API-key revocation, account deletion (unregister) and password changes and resets.
 */
const DESTRUCTIVE = /logout|revoke|unregister|password/;

function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], body });
    }
  }
  return ops;
}

const stats = { requests: 0, byClass: {} as Record<string, number>, failures: [] as string[] };

async function send(
  caller: string,
  token: string | undefined,
  method: string,
  url: string,
  body?: string,
  contentType?: string,
) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (contentType) headers['content-type'] = contentType;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: method === 'GET' || (method === 'DELETE' && body === undefined) ? undefined : body,
    });
  } catch {
    return; // a URL fetch refuses to send is not the server's answer
  }
  const text = await res.text();
  stats.requests++;
  const cls = `${Math.floor(res.status / 100)}xx`;
  stats.byClass[cls] = (stats.byClass[cls] ?? 0) + 1;
  const where =
    `${caller} ${method} ${url.slice(0, 200)} ` +
    `${JSON.stringify((body ?? '').slice(0, 120))} (${contentType ?? '-'})`;
  if (res.status >= 500) stats.failures.push(`${res.status} ${where}: ${text.slice(0, 200)}`);
  if (res.status >= 400) {
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {}
    const shaped =
      /^application\/json/.test(res.headers.get('content-type') ?? '') &&
      parsed?.Code === res.status &&
      typeof parsed?.Message === 'string';
    if (!shaped) stats.failures.push(`shape ${res.status} ${where}: ${text.slice(0, 200)}`);
  }
}

it('fuzzes every operation of /openapi.json: no 5xx, every error {Code, Message}, anonymous changes nothing, an individual only their own data', async () => {
  console.log(`fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
  const doc = await (await fetch(`${t.url}/openapi.json`)).json();
  const resolve = (s: any): any => {
    if (!s?.$ref) return s ?? {};
    return doc.components?.schemas?.[String(s.$ref).split('/').pop()!] ?? {};
  };
  const acme = t.ids.organisations.acme!;
  const marketing = acme.purposes.marketing!;
  // Real IDs where the demo has them, so that authenticated requests reach the rules behind the 404s.
  const known: Record<string, string> = {
    organizationID: acme.id,
    userID: acme.users['alice@acme.example']!,
    purposeID: marketing.id,
    attributeID: marketing.attributes.email!,
  };
  const callers: [string, string | undefined][] = [
    ['anonymous', undefined],
    ['individual', (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token],
    ['owner', (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token],
  ];
  // Alice's consent record (read before the digest: the first read may create it).
  const record = await fetch(`${t.base}/organizations/${known.organizationID}/users/${known.userID}/consents`, {
    headers: { authorization: `Bearer ${callers[1]![1]}` },
  });
  known.consentID = ((await record.json()) as { ID: string }).ID;
  const ops = operationsOf(doc);
  // The set-up's outbox events are numbered just after their commit (docs/events.md): number them now, so that the
  // sequencer's own later work is not taken for a change made by the anonymous caller.
  await t.ctx.sealer.flush(known.organizationID!); // the consent events' seals, also written after the commit
  for (const org of await organisationsWithUnsequenced(t.store.db)) await t.ctx.events.flush(org);
  // The set-up's audit entries (the import's) are sealed after their commit too: seal them now.
  const orgs = rowsOf<{ id: string }>(await t.store.db.execute(sql`SELECT id FROM organisations`));
  for (const { id } of orgs) await t.ctx.auditSealer.flush(id);
  const before = await digest();
  let othersBefore: Record<string, string> = {};
  for (const [caller, token] of callers) {
    if (caller === 'individual') {
      expect(await digest(), 'the anonymous caller changed nothing').toEqual(before);
      othersBefore = await othersDigest(known.userID!);
    }
    if (caller === 'owner')
      expect(await othersDigest(known.userID!), 'the individual changed nothing but their own data').toEqual(
        othersBefore,
      );
    for (const op of ops) {
      if (token && (op.method === 'DELETE' || DESTRUCTIVE.test(op.path))) continue;
      const pathParams = op.params.filter((p) => p.in === 'path');
      const fill = (overrides: Record<string, string> = {}) =>
        t.url +
        op.path.replace(
          /\{(\w+)\}/g,
          (_m, name: string) => overrides[name] ?? encodeURIComponent(known[name] ?? 'fuzz'),
        );
      const base = op.body ? JSON.stringify(sample(op.body, resolve)) : undefined;
      const ct = op.body ? 'application/json' : undefined;
      for (const p of pathParams) {
        for (const bad of pick(random, BAD_STRINGS, 3)) {
          await send(
            caller,
            token,
            op.method,
            fill({ [p.name]: bad.raw ? bad.value : encodeURIComponent(bad.value) }),
            base,
            ct,
          );
        }
      }
      for (const p of op.params.filter((q) => q.in === 'query')) {
        for (const bad of pick(random, BAD_STRINGS, 3)) {
          const value = bad.raw ? bad.value : encodeURIComponent(bad.value);
          await send(caller, token, op.method, `${fill()}?${encodeURIComponent(p.name)}=${value}`, base, ct);
        }
      }
      if (op.method !== 'GET') {
        const bodySchema = resolve(op.body);
        for (const field of Object.keys(bodySchema.properties ?? {})) {
          for (const bad of pick(random, BAD_VALUES, 3)) {
            const body = { ...(sample(op.body, resolve) as object), [field]: bad };
            await send(caller, token, op.method, fill(), JSON.stringify(body), 'application/json');
          }
          const missing = { ...(sample(op.body, resolve) as Record<string, unknown>) };
          delete missing[field];
          await send(caller, token, op.method, fill(), JSON.stringify(missing), 'application/json');
        }
        for (const [raw, type] of pick(random, BAD_BODIES, 4)) await send(caller, token, op.method, fill(), raw, type);
      }
    }
  }
  console.log(
    `fuzz summary: ${stats.requests} requests over ${ops.length} operations; ` +
      `answers by class ${JSON.stringify(stats.byClass)}; failures ${stats.failures.length}`,
  );
  for (const failure of stats.failures.slice(0, 20)) console.log(`fuzz failure: ${failure}`);
  expect(stats.failures.slice(0, 20), `seed ${seed}`).toEqual([]);
}, 240_000);
