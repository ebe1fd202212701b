#!/usr/bin/env node
/**
 * Assent consent benchmark (docs/benchmarks.md): `node bench/consents.mjs` (or `npm run bench:consents`).
 *
 * One bounded run (a watchdog ends it at BENCH_DEADLINE_SECONDS, default 1200) against PostgreSQL
 * on this machine (BENCH_PG_URL):
 *   0. a database assent_bench_<timestamp>: `assent migrate`, `assent import examples/demo.json`,
 *      then BENCH_INDIVIDUALS (default 1,000,000) individuals, 5 purposes × 4 attributes and a
 *      realistic mix of consents in organisation acme, written through SQL in bulk;
 *   a. GET .../users/{userID}/consents for one individual, with their token;
 *   b. PATCH .../attributes/{attributeID}, one individual per connection, history event included,
 *      checked against the consent events afterwards;
 *   c. consented-users pages of 50 (consent purpose, lawful purpose, attribute), first and deep;
 *   d. each of a-c also against a bare Fastify answering the same bodies from memory (the ceiling);
 *   e. EXPLAIN (ANALYZE, BUFFERS) of the SQL behind the pages;
 *   f. the special consent request through the webhook transport (SKIPPED if its endpoint is absent),
 *      then through FCM and APNs to loopback stand-ins (consent-push.mjs); BENCH_SPECIAL_ONLY=1 runs (f) alone;
 *   g. organisation events, run right after (b): the PATCH storm of (b) without and then with an event webhook
 *      (B/A, delivery latency, backlog, drain), the change feed read and the bulk consent check
 *      (consent-events.mjs); BENCH_EVENTS_ONLY=1 runs (g) alone.
 *
 * This file only orchestrates; the parts are bench/lib/consent-*.mjs (bench/README.md, "Consent
 * benchmark"). Everything targets 127.0.0.1 only; the database and the children are removed at the
 * end, also on failure and Ctrl-C. Prints a summary and writes bench/results/consents-latest.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { build } from './lib/build.mjs';
import { cleanup, installGuards, onCleanup, runBenchmark } from './lib/cleanup.mjs';
import { DEMO_FILE, opts, RESULTS_DIR, ROOT } from './lib/config.mjs';
import { versusCeiling } from './lib/consent-cannon.mjs';
import { startCeiling } from './lib/consent-ceiling.mjs';
import { consentOpts, OWNER } from './lib/consent-config.mjs';
import { generateDataset } from './lib/consent-dataset.mjs';
import { eventsMeasures } from './lib/consent-events.mjs';
import { explainPages } from './lib/consent-explain.mjs';
import { login } from './lib/consent-http.mjs';
import { planPages, planRead } from './lib/consent-measures.mjs';
import { planPatch } from './lib/consent-patch.mjs';
import { pushMeasures } from './lib/consent-push.mjs';
import { deepVersusFirst, report } from './lib/consent-report.mjs';
import { specialRequestMeasure } from './lib/consent-special.mjs';
import { startPushStandIns } from './lib/push-standins.mjs';
import { createPostgresDatabase, serverEnv, startServer, stopServer } from './lib/server.mjs';
import { elapsedSeconds, log, machineFacts, r1, redact, runCli } from './lib/util.mjs';

const watchdog = installGuards(consentOpts.deadlineSeconds);

async function main() {
  const startedAt = new Date().toISOString();
  const machine = machineFacts();
  log(
    `Assent consent benchmark: ${consentOpts.individuals} individuals; ${machine.cpuModel}, ` +
      `${machine.cores} cores, Node ${machine.node}, load ${machine.loadAvgStart.join(' ')}`,
  );
  build();

  const { dbName, pgVersion, url } = await createPostgresDatabase();
  const pushStandIns = await startPushStandIns();
  const env = serverEnv({
    ...pushStandIns.env,
    DATABASE_URL: url.toString(),
    ASSENT_SECRET: randomBytes(32).toString('base64'),
    // The dataset holds expired AskMe consents that no sweep has seen yet; the first sweep round
    // (60 s after start by default) would turn them all into Disallow events in the middle of the
    // measures, so it is pushed past the end of the run.
    ASSENT_ASKME_SWEEP_SECONDS: '86400',
    ASSENT_ACCESS_TOKEN_TTL: '7200',
    ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1',
  });
  runCli(['migrate'], env, 120_000);
  const imported = JSON.parse(runCli(['import', DEMO_FILE], env, 120_000));
  const orgId = imported.organisations.acme.id;
  log(`postgres: migrated and imported examples/demo.json (organisation acme ${orgId})`);
  const dataset = await generateDataset(url.toString(), orgId, consentOpts.individuals);

  const sql = new pg.Client({ connectionString: url.toString() });
  sql.on('error', (err) => log(`postgres: bench connection lost: ${err.message}`)); // its next query fails the run
  await sql.connect();
  onCleanup(() => sql.end());
  const server = await startServer('assent', env, dbName);
  server.eld = true;
  const owner = await login(server.base, OWNER.username, OWNER.password);
  const ctx = { base: server.base, url: url.toString(), sql, orgId, dataset, owner };

  let read, patch, pages, explain, events;
  if (consentOpts.eventsOnly) events = await eventsMeasures(server, ctx, await planPatch(ctx));
  else if (!consentOpts.specialOnly) {
    const readPlan = await planRead(ctx);
    const patchPlan = await planPatch(ctx);
    const pagePlans = await planPages(ctx);
    const ceiling = await startCeiling([readPlan.route, patchPlan.route, ...pagePlans.map((p) => p.route)]);

    read = { individual: readPlan.individual, ...(await versusCeiling(server, ceiling, readPlan.spec)) };
    const patchRun = await versusCeiling(server, ceiling, patchPlan.spec);
    patch = { individuals: patchPlan.individuals, ...patchRun, events: await patchPlan.verify() };
    events = await eventsMeasures(server, ctx, patchPlan);
    pages = [];
    for (const plan of pagePlans)
      pages.push({
        listing: plan.listing,
        depth: plan.depth,
        label: plan.label,
        check: plan.check,
        ...(await versusCeiling(server, ceiling, plan.spec)),
      });
    await ceiling.stop();

    log('explain: EXPLAIN (ANALYZE, BUFFERS) of the consented-users pages');
    explain = await explainPages(url.toString(), pagePlans);
    for (const page of explain) {
      const m = page.statements[page.main]?.summary;
      log(
        `  ${page.label}: ${m ? `${m.verdict}, rows read ${m.rowsRead}, ${m.executionMs} ms` : 'statement not captured'}`,
      );
    }
  }
  const special = consentOpts.eventsOnly
    ? { status: 'SKIPPED (BENCH_EVENTS_ONLY=1)', reason: 'only (g) was run' }
    : await specialRequestMeasure(server, ctx);
  const push =
    special.status === 'measured'
      ? await pushMeasures(server, ctx, pushStandIns, special.expectedIndividuals, Math.min(5, consentOpts.seconds))
      : {};
  const shutdown = await stopServer(server);
  await cleanup();

  const results = {
    startedAt,
    totalSeconds: r1(elapsedSeconds()),
    options: { ...consentOpts, pgAdminUrl: redact(opts.pgAdminUrl) },
    machine,
    database: `PostgreSQL ${pgVersion} at ${url.host}`,
    databaseName: dbName,
    dataset,
    read,
    patch,
    pages,
    explain,
    events,
    special,
    push,
    shutdown,
  };
  results.derived = { deepVersusFirst: pages ? deepVersusFirst(pages) : {} };
  const summary = report(results);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, 'consents-latest.json');
  writeFileSync(file, `${JSON.stringify({ ...results, summary }, null, 2)}\n`);
  console.log(`\n${summary}\n`);
  log(`wrote ${path.relative(ROOT, file)}`);
  const failed = [special, ...Object.values(push), events?.webhook, events?.feed, events?.check];
  if (failed.some((m) => m?.status === 'FAILED')) process.exitCode = 1;
}

await runBenchmark('consent benchmark', main, watchdog);
