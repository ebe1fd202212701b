/**
 * The summary printed at the end of a consent benchmark run (also stored as `summary` in
 * bench/results/consents-latest.json).
 */

import { CONSENT_GOALS, consentOpts } from './consent-config.mjs';
import { eventsReport } from './consent-events-report.mjs';
import { PUSH_RATIO_GOAL } from './consent-push.mjs';
import { describeWaits } from './consent-waits.mjs';
import { r2 } from './util.mjs';

const fmt = (x, digits = 1) => (x == null ? 'n/a' : Number(x).toFixed(digits));
const verdict = (ok) => (ok ? 'MET' : 'NOT MET');

/** Deep page vs first page of each listing: p99 and 2xx/s ratios, and whether both are within 2×. */
export function deepVersusFirst(pages) {
  const out = {};
  for (const listing of [...new Set(pages.map((p) => p.listing))]) {
    const first = pages.find((p) => p.listing === listing && p.depth === 'first').assent;
    const deep = pages.find((p) => p.listing === listing && p.depth === 'deep').assent;
    const p99Ratio = first.latencyMs.p99 > 0 ? r2(deep.latencyMs.p99 / first.latencyMs.p99) : null;
    const rateRatio = deep.okPerSecond > 0 ? r2(first.okPerSecond / deep.okPerSecond) : null;
    out[listing] = {
      p99Ratio,
      rateRatio,
      withinGoal:
        p99Ratio != null &&
        rateRatio != null &&
        p99Ratio <= CONSENT_GOALS.deepToFirstMax &&
        rateRatio <= CONSENT_GOALS.deepToFirstMax,
    };
  }
  return out;
}

/**
 * Builds the printed summary.
 * @param results - what consents.mjs stores in consents-latest.json.
 */
export function report(results) {
  const { machine, dataset, read, patch, pages, explain, special } = results;
  const cores = machine.cores;
  const lines = [];
  const out = (s = '') => lines.push(s);
  const run = (m) =>
    `${fmt(m.okPerSecond)} req/s, p50 ${m.latencyMs.p50} ms, p99 ${m.latencyMs.p99} ms, ` +
    `non-2xx ${m.non2xx}, errors ${m.errors}, timeouts ${m.timeouts}`;
  const cpu = (c) =>
    c
      ? `CPU (cores of ${cores}): server main ${fmt(c.serverMainThread, 2)}, ` +
        `server other threads ${fmt(c.serverOtherThreads, 2)}, postgres ${fmt(c.postgres, 2)}, ` +
        `load generator ${fmt(c.loadGenerator, 2)}, ` +
        `other processes ${fmt(c.otherProcesses, 2)} (steal ${fmt(c.steal, 2)})`
      : 'CPU accounting unavailable';
  const pair = (m, indent = '   ') => {
    out(`${indent}Assent:  ${run(m.assent)}`);
    if (m.assent.eventLoopDelayMs)
      out(
        `${indent}         event-loop delay p99 ${fmt(m.assent.eventLoopDelayMs.p99, 2)} ms; ${cpu(m.assent.cpuCores)}`,
      );
    if (m.assent.postgresWaits) out(`${indent}         PostgreSQL: ${describeWaits(m.assent.postgresWaits)}`);
    out(`${indent}ceiling: ${run(m.ceiling)}`);
    out(`${indent}Assent ÷ ceiling: ${fmt(m.ratio, 2)}`);
  };

  out('=== Assent consent benchmark summary ===');
  out(
    `Machine: ${machine.cpuModel}, ${cores} cores, Node ${machine.node}; ` +
      `load average at start ${machine.loadAvgStart.join(' / ')}`,
  );
  out(`Database: ${results.database}; started ${results.startedAt}, took ${results.totalSeconds} s`);
  out(
    `Settings: ${consentOpts.warmupSeconds} s warm-up + ${consentOpts.seconds} s per run; ` +
      `${consentOpts.readConnections} connections for reads, ` +
      `${consentOpts.patchConnections} for PATCH; autocannon in the bench process, on the same cores`,
  );
  out();
  const s = dataset.stats;
  out(
    `Dataset: ${dataset.individuals} individuals, 5 purposes x 4 attributes in ` +
      `organisation acme (plus the demo's 2 purposes), generated in ${fmt(dataset.seconds)} s`,
  );
  out(
    `   steps (s): ${Object.entries(dataset.steps)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  out(
    `   attribute_consents: ${Object.entries(s.attributeConsents)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; never decided ${s.neverDecided}; ` +
      `AskMe with days ${s.askMeWithDays} (expired, not swept ${s.askMeExpired}); ` +
      `Disallow on "${dataset.purposes[4].name}" ${s.specialDisallowUsers}; ${fmt(s.sizeMiB)} MiB`,
  );
  out();
  // (a)-(e) are absent when BENCH_SPECIAL_ONLY=1 ran (f) alone.
  if (read) {
    out(
      `(a) GET consents of one individual (${read.individual.username}: ${read.individual.purposes} purposes, ` +
        `${read.individual.attributes} attributes, ${read.individual.bodyBytes} bytes)`,
    );
    pair(read);
    out(
      `   goal >= ${CONSENT_GOALS.readPerSecond}/s: ` +
        `${verdict(read.assent.okPerSecond >= CONSENT_GOALS.readPerSecond)}; ` +
        `p99 <= ${CONSENT_GOALS.readP99Ms} ms: ${verdict(read.assent.latencyMs.p99 <= CONSENT_GOALS.readP99Ms)}`,
    );
    out();
    out(`(b) PATCH one attribute, Allow/Disallow alternating, one individual per connection (${patch.individuals})`);
    pair(patch);
    const e = patch.events;
    out(
      `   consent_events grew by ${e.growth}; 2xx ${e.ok2xx}; 2xx without event ${e.okWithoutEvent}; ` +
        `events of requests in flight at the stop ${e.eventsWithoutAnswer}: ${e.verdict}`,
    );
    out(
      `   goal >= ${CONSENT_GOALS.patchPerSecond}/s: ` +
        `${verdict(patch.assent.okPerSecond >= CONSENT_GOALS.patchPerSecond)}; non-2xx = 0: ` +
        `${patch.assent.non2xx === 0 && patch.assent.errors === 0 ? 'OK' : 'FAILED'}`,
    );
    out();
    out(`(c) consented-users pages of ${consentOpts.pageLimit}, Owner token`);
    for (const p of pages) {
      const c = p.check;
      const where =
        p.depth === 'deep'
          ? ` (after listed user #${c.position} of ${c.listed}${c.positionFallback ? ', 90 % of the listing' : ''})`
          : ` (${c.listed} listed)`;
      out(`   ${p.label}${where}; matches SQL: ${c.matchesSql ? 'yes' : 'NO'}`);
      pair(p, '      ');
      out(`      p99 <= ${CONSENT_GOALS.pageP99Ms} ms: ${verdict(p.assent.latencyMs.p99 <= CONSENT_GOALS.pageP99Ms)}`);
    }
    for (const [listing, d] of Object.entries(results.derived.deepVersusFirst)) {
      out(
        `   ${listing}: deep/first p99 ${fmt(d.p99Ratio, 2)}, first/deep req/s ${fmt(d.rateRatio, 2)}: ` +
          `within ${CONSENT_GOALS.deepToFirstMax}x ${verdict(d.withinGoal)}`,
      );
    }
    out();
    out('(e) EXPLAIN (ANALYZE, BUFFERS) of the consented-users statement of each page (src/consent/listings/store.ts)');
    for (const page of explain) {
      const st = page.statements[page.main];
      if (!st) {
        out(`   ${page.label}: no statement reading attribute_consents was captured`);
        continue;
      }
      const m = st.summary;
      out(
        `   ${page.label}: ${m.verdict}: rows read ${m.rowsRead} (bound ${m.rowsReadBound}), ` +
          `Limit ${m.hasLimit ? 'yes' : 'NO'}, ` +
          `Seq Scan on big tables ${m.seqScansOnBigTables.length ? m.seqScansOnBigTables.join(', ') : 'none'}, ` +
          `buffers hit ${m.sharedHitBlocks} read ${m.sharedReadBlocks}, ${fmt(m.executionMs, 2)} ms`,
      );
      for (const scan of m.scans)
        out(
          `      ${scan.node}${scan.index ? ` using ${scan.index}` : ''} on ${scan.relation}: ` +
            `${scan.rows} rows in ${scan.loops} loops, ${scan.removedByFilter} removed by filter`,
        );
    }
  }
  if (results.events) {
    out();
    eventsReport(results.events, out, run, cpu);
  }
  out();
  out(
    '(f) special consent request through the webhook transport (goal ' +
      `>= ${CONSENT_GOALS.notificationsPerSecond} notifications/s)`,
  );
  if (special.status === 'measured' || special.status === 'FAILED') {
    out(
      `   ${special.status}${special.reason ? ` (${special.reason})` : ''}: ${fmt(special.notificationsPerSecond)} notifications/s ` +
        `(Notified ${special.job?.Notified} of ${special.expectedIndividuals} expected, ` +
        `in ${special.secondsFrom202ToFinished} s); receiver: ${special.receiver?.posts} POSTs, ` +
        `${special.receiver?.distinctIdempotencyKeys} distinct keys; receiver ceiling ` +
        `${fmt(special.receiverCeilingPerSecond)} POST/s, ratio ${fmt(special.ratioToReceiverCeiling, 2)}`,
    );
    if (special.serverSideSeconds)
      out(
        `   the job's own CreatedAt -> FinishedAt: ${special.serverSideSeconds} s ` +
          `= ${fmt(special.job.Notified / special.serverSideSeconds)} notifications/s`,
      );
    if (special.checks)
      out(
        `   checks: ${Object.entries(special.checks)
          .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
          .join(', ')}`,
      );
    if (special.notificationsPerSecond != null)
      out(`   goal: ${verdict(special.notificationsPerSecond >= CONSENT_GOALS.notificationsPerSecond)}`);
  } else {
    out(`   *** ${special.status} *** ${special.reason}`);
  }
  for (const [kind, p] of Object.entries(results.push ?? {})) {
    out();
    out(
      `(f) the same request through ${kind === 'fcm' ? 'FCM' : 'APNs'} to its loopback stand-in (goal ratio >= ${PUSH_RATIO_GOAL})`,
    );
    if (p.status !== 'measured' && p.status !== 'FAILED') {
      out(`   *** ${p.status} *** ${p.reason}`);
      continue;
    }
    out(
      `   ${p.status}${p.reason ? ` (${p.reason})` : ''}: ${fmt(p.notificationsPerSecond)} notifications/s ` +
        `(Notified ${p.job?.Notified} of ${p.expectedIndividuals}, in ${p.secondsFrom202ToFinished} s); stand-in: ` +
        `${p.standIn?.posts} pushes to ${p.standIn?.distinctTokens} devices, ${p.standIn?.refused} refused; ` +
        `stand-in ceiling ${fmt(p.standInCeilingPerSecond)}/s, ratio ${fmt(p.ratioToStandInCeiling, 2)}`,
    );
    if (p.checks)
      out(
        `   checks: ${Object.entries(p.checks)
          .map(([k, v]) => `${k} ${v ? 'yes' : 'NO'}`)
          .join(', ')}`,
      );
    if (p.ratioToStandInCeiling != null) out(`   goal: ${verdict(p.ratioToStandInCeiling >= PUSH_RATIO_GOAL)}`);
  }
  const all = [read, patch, ...(pages ?? [])]
    .filter(Boolean)
    .flatMap((m) => [m.assent.cpuCores, m.ceiling.cpuCores])
    .concat(
      [
        results.events?.stormA,
        results.events?.spreadA?.storm,
        results.events?.webhook?.storm,
        results.events?.webhook?.spread?.storm,
      ].map((m) => m?.cpuCores),
    )
    .filter(Boolean);
  const worst = Math.max(0, ...all.map((c) => c.otherProcesses + c.steal));
  if (worst >= 0.2) {
    out();
    out(
      `WARNING: other processes (or steal) took up to ${fmt(worst, 2)} of ${cores} cores during a measurement; ` +
        'the figures are depressed by that much. Re-run on a quiet machine.',
    );
  }
  return lines.join('\n');
}
