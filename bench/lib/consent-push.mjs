/**
 * Measure (f), push part (bench/README.md "Consent benchmark"): the same special consent request as
 * the webhook run, to the same individuals, each given a device first, through FCM and then
 * through APNs to the loopback stand-ins of push-standins.mjs. Reported per transport:
 * notifications/s (Notified ÷ time from the 202 to the job seen finished), the stand-in's counts
 * (each device exactly once), and the ratio to what the stand-in alone accepts from a load
 * generator in the same run. Goal: a ratio ≥ 0.3, as the webhook's.
 */
import { SPECIAL_PURPOSE } from './consent-dataset.mjs';
import { call } from './consent-http.mjs';
import { requestAndWait } from './consent-special.mjs';
import { log, r1 } from './util.mjs';

/** The push runs' goal: notifications/s ÷ the stand-in's own ceiling. */
export const PUSH_RATIO_GOAL = 0.3;

/** Gives the request's individuals a device: Android (FCM tokens) or iOS (hexadecimal APNs tokens). */
async function giveDevices(ctx, purposeId, kind) {
  const started = performance.now();
  const { rowCount } = await ctx.sql.query(
    `UPDATE users u SET client_type = $3,
       client_token = CASE WHEN $3 = 1 THEN replace(u.id::text, '-', '') || replace(u.id::text, '-', '') ELSE 'fcm:' || u.id::text END
     WHERE u.id IN (SELECT c.user_id FROM attribute_consents c JOIN subscriptions s ON s.org_id = $1 AND s.user_id = c.user_id
       WHERE c.purpose_id = $2 AND (c.value = 'Disallow' OR (c.value = 'AskMe' AND c.expires_at <= now())))`,
    [ctx.orgId, purposeId, kind === 'apns' ? 1 : 2],
  );
  log(`special/${kind}: ${rowCount} individuals given a device in ${r1((performance.now() - started) / 1000)} s`);
}

/**
 * Runs the FCM and the APNs fan-out.
 * @param standIns - from `startPushStandIns` (the server was started with its `env`).
 * @param expected - individuals the request must reach (the webhook run's count).
 * @returns `{fcm, apns}`, each `{status: 'measured'|'FAILED', ...}`.
 */
export async function pushMeasures(server, ctx, standIns, expected, ceilingSeconds) {
  const purpose = ctx.dataset.purposes[SPECIAL_PURPOSE];
  const token = ctx.owner.access;
  const org = `/v1/organizations/${ctx.orgId}`;
  const results = {};
  for (const kind of ['fcm', 'apns']) {
    const standIn = standIns[kind];
    await giveDevices(ctx, purpose.id, kind);
    const put = await call(server.base, 'PUT', `${org}/notification-transports`, {
      token,
      body: { [kind]: standIn.credentials },
    });
    if (put.status !== 200) {
      results[kind] = { status: 'FAILED', reason: `PUT ${kind} answered ${put.status} ${put.text.slice(0, 300)}` };
      continue;
    }
    const before = { posts: standIn.stats.posts, refused: standIn.stats.refused };
    standIn.stats.tokens.clear();
    const run = await requestAndWait(server, token, org, purpose.id);
    await call(server.base, 'PUT', `${org}/notification-transports`, { token, body: { [kind]: null } });
    if (run.status) {
      results[kind] = run;
      continue;
    }
    const { job, acceptedAt, finishedAt } = run;
    const finished = job?.State === 'completed';
    const seconds = (finishedAt - acceptedAt) / 1000;
    const perSecond = finished ? r1(job.Notified / seconds) : null;
    const posts = standIn.stats.posts - before.posts;
    const devices = standIn.stats.tokens.size; // before the ceiling run adds its own device
    const ceiling = await standIn.ceiling(ceilingSeconds);
    const ratio = perSecond && ceiling ? Math.round((perSecond / ceiling) * 100) / 100 : null;
    results[kind] = {
      status: finished ? 'measured' : 'FAILED',
      reason: finished ? null : `job ${job?.State ?? 'not seen'} ${job?.Error ?? ''}`,
      expectedIndividuals: expected,
      job,
      secondsFrom202ToFinished: r1(seconds),
      notificationsPerSecond: perSecond,
      standIn: { posts, distinctTokens: devices, refused: standIn.stats.refused - before.refused },
      standInCeilingPerSecond: ceiling,
      ratioToStandInCeiling: ratio,
      checks: {
        notifiedEqualsExpected: job?.Notified === expected,
        allBy: job?.ByTransport?.[kind === 'fcm' ? 'FCM' : 'APNs']?.Notified === job?.Notified,
        exactlyOncePerDevice: devices === posts,
        nothingRefused: standIn.stats.refused === before.refused, // read after the ceiling run: it too must pass
      },
      goal: `ratio >= ${PUSH_RATIO_GOAL}`,
    };
    log(
      `special/${kind}: ${results[kind].status}: Notified ${job?.Notified} of ${expected} in ${r1(seconds)} s = ` +
        `${perSecond}/s; stand-in got ${posts} (${devices} devices); ceiling ${ceiling}/s; ratio ${ratio}`,
    );
  }
  return results;
}
