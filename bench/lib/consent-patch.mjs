/**
 * Measure (b) of the consent benchmark: PATCH .../consents/{consentID}/purposes/{purposeID}/attributes/{attributeID}
 * with {"consented": "Allow"|"Disallow" (alternating), "days": 0}. Every autocannon connection is
 * its own individual, with their own access token (the individual may change their own record,
 * src/consent/records/access.ts), on one attribute of a consent-based purpose, so that no two connections
 * contend for one record's lock; all of them append to the organisation's one hash chain.
 *
 * Every request carries a unique X-Request-Id (Assent keeps it as the event's request_id), so that
 * afterwards the consent events can be matched to the answers: the events must have grown by exactly
 * the requests Assent processed, every 2xx must have its event, and the only events without a seen
 * answer may be those of requests in flight when autocannon stopped (at most one per connection).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { USER } from './config.mjs';
import { CONSENT_GOALS, consentOpts } from './consent-config.mjs';
import { call, loginAll } from './consent-http.mjs';
import { log } from './util.mjs';

const PATTERN =
  '/v1/organizations/:organizationID/users/:userID/consents/:consentID/purposes/:purposeID/attributes/:attributeID';

async function countEvents(sql) {
  return (await sql.query('SELECT count(*)::int AS n FROM consent_events')).rows[0].n;
}

/**
 * The event count once requests still in flight on the server (autocannon drops its connections at
 * the end of a run, the server finishes what it received) have committed: unchanged for 1 s.
 */
async function settledEventCount(sql) {
  let last = await countEvents(sql);
  for (let i = 0; i < 40; i++) {
    await sleep(500);
    const now = await countEvents(sql);
    if (now === last && i > 0) return now;
    last = now;
  }
  throw new Error('consent_events kept growing for 20 s after the PATCH run stopped');
}

/** The PATCH path of individual number `j`: one attribute of a consent purpose, spread over them by `j`. */
function attributePath(ctx, row, j) {
  const consentPurposes = ctx.dataset.purposes.filter((p) => !p.lawful);
  const purpose = consentPurposes[j % consentPurposes.length];
  const attributeId = purpose.attributeIds[Math.floor(j / consentPurposes.length) % purpose.attributeIds.length];
  return (
    `/v1/organizations/${ctx.orgId}/users/${row.userId}/consents/${row.recordId}` +
    `/purposes/${purpose.id}/attributes/${attributeId}`
  );
}

/** The users and consent records of `usernames` in the organisation. */
async function recordsOf(ctx, usernames) {
  const { rows } = await ctx.sql.query(
    `SELECT u.username, u.id AS "userId", r.id AS "recordId"
     FROM users u JOIN consent_records r ON r.user_id = u.id AND r.org_id = $1 WHERE u.username = ANY($2)`,
    [ctx.orgId, usernames],
  );
  return rows;
}

/**
 * Logs in one individual per connection (spread over the ID order), checks one PATCH and records
 * its body for the ceiling.
 * @param {import('./consent-measures.mjs').Ctx} ctx
 */
export async function planPatch(ctx) {
  const n = ctx.dataset.individuals;
  const connections = consentOpts.patchConnections;
  const usernames = Array.from(
    { length: connections },
    (_, j) => `bench-${1 + Math.floor(((j + 0.5) * n) / connections)}@acme.example`,
  );
  const rows = await recordsOf(ctx, usernames);
  const t0 = performance.now();
  const sessions = await loginAll(ctx.base, usernames, USER.password);
  log(`patch: logged in ${connections} individuals in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const conns = usernames.map((username, j) => ({
    j,
    paths: [
      attributePath(
        ctx,
        rows.find((r) => r.username === username),
        j,
      ),
    ],
    authorization: `Bearer ${sessions[j].access}`,
  }));
  const probe = await call(ctx.base, 'PATCH', conns[0].paths[0], {
    token: sessions[0].access,
    body: { consented: 'Allow', days: 0 },
    expect: 200,
  });
  const first = patchRun(ctx, conns, 'PATCH one attribute (history event included)');

  return {
    individuals: connections,
    route: { method: 'PATCH', pattern: PATTERN, bodies: {}, fallback: probe.text },
    spec: first.spec,
    verify: first.verify,
    again: (name) => patchRun(ctx, conns, name),
    goals: { perSecond: CONSENT_GOALS.patchPerSecond },
  };
}

let runCount = 0;

/**
 * One PATCH run's autocannon spec and its event check, with their own request-ID tag (so several runs of the same
 * individuals are checked apart).
 * @param conns - one `{j, paths, authorization}` per connection: the attribute paths it cycles through (one per
 *   individual) and its Authorization header.
 * @param name - the measure's name in the log.
 * @returns `{spec, verify}`: the spec for consent-cannon.mjs; `verify()` after the Assent measured run.
 */
function patchRun(ctx, conns, name) {
  const connections = conns.length;
  const tag = `bench-patch-${Date.now().toString(36)}-${++runCount}`;
  /** Per (target, phase): the request IDs answered 2xx, and failures. */
  const runs = new Map();
  let current = null;

  const spec = {
    name,
    connections,
    async before(phase, target) {
      current = { okIds: [], failures: 0, lastFailure: null };
      runs.set(`${target.label}-${phase}`, current);
      if (target.label === 'assent' && phase === 'measure') current.eventsBefore = await settledEventCount(ctx.sql);
    },
    options(phase, target) {
      const run = current;
      let assigned = 0;
      return {
        setupClient(client) {
          const conn = conns[assigned++ % conns.length];
          let sent = 0;
          let inFlight = null;
          // autocannon cycles through a connection's requests: one per individual, each alternating its value.
          client.setRequests(
            conn.paths.map((path) => {
              let mine = 0;
              return {
                method: 'PATCH',
                path,
                headers: { authorization: conn.authorization, 'content-type': 'application/json' },
                setupRequest(req) {
                  sent++;
                  mine++;
                  inFlight = `${tag}-${target.label}-${phase}-${conn.j}-${sent}`;
                  req.headers = { ...req.headers, 'x-request-id': inFlight };
                  req.body = JSON.stringify({ consented: mine % 2 === 1 ? 'Allow' : 'Disallow', days: 0 });
                  return req;
                },
                onResponse(status, body) {
                  if (status >= 200 && status < 300) run.okIds.push(inFlight);
                  else {
                    run.failures++;
                    run.lastFailure = `${status} ${String(body).slice(0, 200)}`;
                  }
                },
              };
            }),
          );
        },
      };
    },
  };

  /** After the Assent measured run: matches the consent events to the answers. */
  async function verify() {
    const run = runs.get('assent-measure');
    const eventsAfter = await settledEventCount(ctx.sql);
    const { rows: tagged } = await ctx.sql.query('SELECT request_id FROM consent_events WHERE request_id LIKE $1', [
      `${tag}-assent-measure-%`,
    ]);
    const withEvent = new Set(tagged.map((r) => r.request_id));
    const okWithoutEvent = run.okIds.filter((id) => !withEvent.has(id)).length;
    const growth = eventsAfter - run.eventsBefore;
    const okSet = new Set(run.okIds);
    const eventsWithoutAnswer = tagged.filter((r) => !okSet.has(r.request_id)).length;
    const ok =
      run.failures === 0 && okWithoutEvent === 0 && growth === tagged.length && eventsWithoutAnswer <= connections;
    const result = {
      eventsBefore: run.eventsBefore,
      eventsAfter,
      growth,
      ok2xx: run.okIds.length,
      taggedEvents: tagged.length,
      okWithoutEvent,
      eventsWithoutAnswer,
      clientFailures: run.failures,
      sampleFailure: run.lastFailure,
      verdict: ok ? 'OK' : 'FAILED',
    };
    log(
      `patch: consent_events grew by ${growth}; 2xx answers ${run.okIds.length}; ` +
        `2xx without an event ${okWithoutEvent}; ` +
        'events of requests still in flight when the run stopped ' +
        `${eventsWithoutAnswer} (at most ${connections}): ${result.verdict}`,
    );
    return result;
  }

  return { spec, verify };
}

/**
 * The PATCH storm of (b) spread over more individuals: `perConnection` individuals per connection (each connection
 * cycles through its own), written with the Owner's API key (an organisation's Owner may change a subscribed
 * individual's record, docs/api.md "Authentication"), so that no login is needed per individual. Used by (g) to see
 * the event webhook's delivery with more lanes (one per individual, docs/events.md "Delivery guarantees").
 * @returns `{individuals, again(name)}`: `again` gives a run's `{spec, verify}`, each with its own tag.
 */
export async function planSpread(ctx, perConnection) {
  const n = ctx.dataset.individuals;
  const connections = consentOpts.patchConnections;
  const count = Math.min(n, connections * perConnection);
  const usernames = Array.from(
    { length: count },
    (_, i) => `bench-${1 + Math.floor(((i + 0.5) * n) / count)}@acme.example`,
  );
  const rows = await recordsOf(ctx, usernames);
  const byName = new Map(rows.map((r) => [r.username, r]));
  const conns = Array.from({ length: connections }, (_, j) => ({
    j,
    paths: usernames
      .map((u, i) => ({ u, i }))
      .filter(({ i }) => i % connections === j)
      .map(({ u, i }) => attributePath(ctx, byName.get(u), i)),
    authorization: `ApiKey ${ctx.owner.apiKey}`,
  })).filter((c) => c.paths.length > 0);
  return { individuals: count, again: (name) => patchRun(ctx, conns, name) };
}
