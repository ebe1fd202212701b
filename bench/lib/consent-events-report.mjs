/**
 * The lines of (g), the organisation events (consent-events.mjs), in the printed summary of the consent benchmark
 * (consent-report.mjs).
 */
import { CONSENT_GOALS } from './consent-config.mjs';
import { describeWaits, describeWal } from './consent-waits.mjs';

const fmt = (x, digits = 1) => (x == null ? 'n/a' : Number(x).toFixed(digits));
const verdict = (ok) => (ok ? 'MET' : 'NOT MET');
const lat = (l) => `p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms, max ${fmt(l.max)} ms (n ${l.n})`;

/**
 * Whether delivery kept up with the storm: a backlog at its end of at most CONSENT_GOALS.backlogMaxSeconds of the
 * events committed per second, not growing (after its first second) by more than CONSENT_GOALS.backlogSlopeFraction
 * of them per second.
 */
export function keptUp(d) {
  return (
    d.backlogAtEnd <= CONSENT_GOALS.backlogMaxSeconds * d.committedPerSecond &&
    d.backlogSlopePerSecond != null &&
    d.backlogSlopePerSecond <= CONSENT_GOALS.backlogSlopeFraction * d.committedPerSecond
  );
}

/** The delivery lines of one storm with the webhook (B, or the spread storm B'). */
function deliveryLines(x, label, out) {
  const d = x.delivery;
  out(
    `   receipt - event time of the events committed during ${label} (${fmt(d.windowSeconds)} s): ` +
      `${lat(d.latencyMs.committedInWindow)}; goal p99 <= ${CONSENT_GOALS.eventLatencyP99Ms} ms: ` +
      `${verdict(d.latencyMs.committedInWindow.p99 <= CONSENT_GOALS.eventLatencyP99Ms)}`,
  );
  out(`      (of the events received during ${label}: ${lat(d.latencyMs.receivedInWindow)})`);
  out(`      the server's records: to the fan-out ${lat(x.split.fanOutMs)}`);
  out(`         queued for its lane and a claim ${lat(x.split.queuedMs)}; sent ${lat(x.split.sendMs)}`);
  out(
    `   delivered ${fmt(d.deliveredPerSecond)}/s during ${label}, committed ${fmt(d.committedPerSecond)}/s; backlog at ` +
      `its start ${d.backlogAtStart}, at its end ${d.backlogAtEnd}, slope after its first second ${fmt(d.backlogSlopePerSecond)} events/s; ` +
      `drained ${fmt(d.drainSeconds, 2)} s after it (${fmt(d.drainPerSecond)} events/s)`,
  );
  out(`      backlog each second: ${d.backlogEachSecond.join(' ')}`);
  out(
    `   goal delivered/s >= PATCH rate, no growing backlog (at the end <= ${CONSENT_GOALS.backlogMaxSeconds} s of ` +
      `events, slope <= ${CONSENT_GOALS.backlogSlopeFraction * 100} % of them per s): ` +
      `${verdict(keptUp(d))}; ${d.committed} committed, ${d.received} received, missing ${d.missing}, unexpected ` +
      `${d.unexpected}, duplicates ${d.duplicates}, out of order ${d.orderViolations}`,
  );
}

/**
 * Appends the lines of (g).
 * @param events - `results.events` (consent-events.mjs `eventsMeasures`).
 * @param out - adds one line.
 * @param run - formats one autocannon summary.
 * @param cpu - formats a CPU split.
 */
export function eventsReport(events, out, run, cpu) {
  const { stormA, webhook: w, feed, check } = events;
  out('(g) organisation events (docs/events.md)');
  out(`   A, PATCH storm without a webhook:     ${run(stormA)}`);
  out(`      ${cpu(stormA.cpuCores)}; events ${events.eventsA.verdict}`);
  if (describeWal(stormA)) out(`      ${describeWal(stormA)}`);
  if (w.storm) {
    out(`   B, the same with one webhook (every consent event type, loopback receiver answering 204):`);
    out(`      ${run(w.storm)}`);
    out(`      ${cpu(w.storm.cpuCores)}; events ${w.events.verdict}`);
    if (w.storm.postgresWaits) out(`      PostgreSQL: ${describeWaits(w.storm.postgresWaits)}`);
    if (describeWal(w.storm)) out(`      ${describeWal(w.storm)}`);
    if (events.stormA2) out(`   A2, A again just after B, the webhook disabled: ${run(events.stormA2.storm)}`);
    out(
      `   B/A = ${fmt(events.ratio, 2)} (B over the mean of A and A2; over A alone ${fmt(events.ratios?.beforeOnly, 2)}, ` +
        `over A2 alone ${fmt(events.ratios?.afterOnly, 2)})`,
    );
    const alt = w.alternated;
    if (alt) {
      const rates = alt.storms.map((x) => `${x.kind} ${fmt(x.okPerSecond)}`).join(', ');
      const posted = alt.storms.filter((x) => x.kind === 'r' || x.kind === 'f').map((x) => fmt(x.postedPerSecond));
      out(
        `   by alternation, ${alt.storms.length} storms of ${alt.seconds} s: the webhook disabled (a), on (b), ` +
          `disabled while autocannon (bench process) POSTs a delivery's body to the receiver at B's delivery rate ` +
          `(r: floor R), and r with a delivery-log-sized row written by each change (f: floor F); ` +
          `${alt.rate}/s asked, ${posted.join(', ')}/s answered: ${rates}`,
      );
      const perRound = alt.rounds.map((x) => `${fmt(x.b, 2)}, ${fmt(x.r, 2)}, ${fmt(x.f, 2)}`).join('; ');
      out(
        `   B/A = ${fmt(alt.ratio, 2)}, floor R/A = ${fmt(alt.loadedRatio, 2)}, floor F/A = ${fmt(alt.floorRatio, 2)} ` +
          `(each kind's rates summed over a's; per round b/a, r/a, f/a: ${perRound})`,
      );
    }
    const headline = alt?.ratio ?? events.ratio;
    out(
      `   goal B/A >= ${CONSENT_GOALS.webhookPatchRatio} (by alternation): ` +
        `${verdict(headline >= CONSENT_GOALS.webhookPatchRatio)}`,
    );
    if (events.floor) {
      const f = events.floor;
      out(
        `   floor: L (run last), A's storm with each change writing one delivery-log-sized row (${f.rowBytes} bytes) ` +
          `in the change's transaction, no webhook: ${run(f.storm)}; events ${f.events.verdict}; L/A = ` +
          `${fmt(f.ratio, 2)} (over the mean of A and A2)`,
      );
      if (describeWal(f.storm)) out(`      ${describeWal(f.storm)}`);
    }
    deliveryLines(w, 'B', out);
    if (w.spread) {
      const sp = w.spread;
      const a2 = events.spreadA;
      out(
        `   A', the storm spread over ${sp.individuals} individuals (${sp.individuals / sp.storm.connections} per ` +
          `connection, the Owner's API key), webhook disabled: ${run(a2.storm)}; events ${a2.events.verdict}`,
      );
      out(
        `   B', A' with the webhook (one lane per individual: ${sp.individuals} instead of ${w.storm.connections}): ` +
          `${run(sp.storm)}; events ${sp.events.verdict}`,
      );
      out(`      ${cpu(sp.storm.cpuCores)}`);
      if (describeWal(sp.storm)) out(`      ${describeWal(sp.storm)} (A': ${describeWal(a2.storm) ?? 'not measured'})`);
      if (events.spreadA2) out(`   A'2, A' again just after B', the webhook deleted: ${run(events.spreadA2.storm)}`);
      out(
        `   B'/A' = ${fmt(events.spreadRatio, 2)} (over the mean of A' and A'2; over A' alone ` +
          `${fmt(events.ratios?.spreadBeforeOnly, 2)}, over A'2 alone ${fmt(events.ratios?.spreadAfterOnly, 2)}): goal >= ` +
          `${CONSENT_GOALS.webhookPatchRatio}: ${verdict(events.spreadRatio >= CONSENT_GOALS.webhookPatchRatio)}`,
      );
      deliveryLines(sp, "B'", out);
    }
    const states = w.deliveriesByState.map((s) => `${s.state} ${s.n} (retried ${s.retried})`).join(', ');
    out(
      `   receiver floor (autocannon alone, ${w.receiverFloorConnections} connections) ` +
        `${fmt(w.receiverFloorPerSecond)} POST/s; signatures verified ${w.receiver.signaturesVerified}, bad ` +
        `${w.receiver.badSignatures}; deliveries ${states}; ${w.status}`,
    );
  } else {
    out(`   webhook: *** ${w.status} *** ${w.reason}`);
  }
  out();
  if (feed.status === 'measured' || feed.status === 'FAILED') {
    out(
      `   feed read from the start, pages of 1000, Owner: ${feed.events} events (${feed.generatedInSql} of them ` +
        `copies added in SQL) in ${feed.pages} pages, ${fmt(feed.megabytes)} MiB, ${fmt(feed.seconds)} s = ` +
        `${fmt(feed.eventsPerSecond)} events/s (${fmt(feed.eventsPerSecondWithoutParse)} without the reader's ` +
        `JSON.parse, ${fmt(feed.clientParseSeconds)} s); page ${lat(feed.pageMs)}`,
    );
    out(
      `      goal >= ${CONSENT_GOALS.feedEventsPerSecond} events/s: ${verdict(feed.eventsPerSecond >= CONSENT_GOALS.feedEventsPerSecond)}; ` +
        `floors (bench process, same pages): the feed's statement alone ${fmt(feed.floor.sqlAlone.eventsPerSecond)} ` +
        `events/s, with CloudEvents and JSON ${fmt(feed.floor.withCloudEvents.eventsPerSecond)} events/s; ${feed.status}` +
        (feed.reason ? ` (${feed.reason})` : ''),
    );
  } else out(`   feed: *** ${feed.status} *** ${feed.reason}`);
  out();
  if (check.status === 'measured' || check.status === 'FAILED') {
    out(
      `   bulk check, ${check.individualsPerCheck} individuals x ${check.attributes} attributes, one in flight ` +
        `(${check.warmup} warm-up + ${check.requests}): ${lat(check.latencyMs)}`,
    );
    out(
      `      goal p99 <= ${CONSENT_GOALS.checkP99Ms} ms: ${verdict(check.latencyMs.p99 <= CONSENT_GOALS.checkP99Ms)}; ` +
        `its statement alone ${lat(check.floor.statementMs)}; EXPLAIN ANALYZE ${fmt(check.floor.explain.executionMs, 2)} ms ` +
        `+ planning ${fmt(check.floor.explain.planningMs, 2)} ms; ${check.status}` +
        (check.reason ? ` (${check.reason})` : ''),
    );
  } else out(`   check: *** ${check.status} *** ${check.reason}`);
}
