/**
 * Event-loop delay probe, preloaded into the server by the benchmark:
 *
 *   BENCH_ELD_FILE=/tmp/eld.jsonl node --require ./bench/eld.cjs bin/assent.cjs serve
 *
 * It samples the event loop with `perf_hooks.monitorEventLoopDelay({ resolution: 10 })` and appends
 * one JSON line per window to BENCH_ELD_FILE:
 *
 * - on SIGUSR2: the window since the previous SIGUSR2 (or since start), then the histogram is reset,
 *   so the benchmark can bracket exactly one load phase with two signals;
 * - at process exit (`process.on('exit')`, written synchronously): the last window. This covers
 *   SIGTERM too, because the server's own SIGTERM handler ends with `process.exit(0)`.
 *
 * Values are in milliseconds. The histogram records the whole interval between two 10 ms timer
 * ticks, so an idle loop reads ~10 ms; `p50`/`p99`/`max`/`mean` here are the *delay* beyond the
 * timer's resolution (interval - 10 ms, floored at 0, as fastify's under-pressure reports it);
 * `raw` holds the undoctored intervals.
 *
 * CommonJS, preloaded with `--require`: an ES module preload would start libuv's thread pool before
 * `bin/assent.cjs` sizes it, and the server would run with a pool it never has in production.
 *
 * Behaviour of the product is unchanged: the probe adds no SIGTERM/SIGINT listener (the server
 * installs its own), only a SIGUSR2 listener (a signal Assent does not use), an unref'd timer
 * inside the histogram, and an 'exit' listener. Without BENCH_ELD_FILE it does nothing.
 */
'use strict';
const { appendFileSync } = require('node:fs');
const { monitorEventLoopDelay } = require('node:perf_hooks');

const file = process.env.BENCH_ELD_FILE;
const RESOLUTION_MS = 10;

if (file) {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  let windowStart = Date.now();
  let seq = 0;

  const ms = (ns) => ns / 1e6;
  const delay = (ns) => Math.round(Math.max(0, ms(ns) - RESOLUTION_MS) * 100) / 100;
  const round = (x) => Math.round(x * 100) / 100;

  const write = (reason) => {
    const empty = histogram.count === 0;
    const record = {
      seq: seq++,
      reason,
      pid: process.pid,
      startedAt: new Date(windowStart).toISOString(),
      endedAt: new Date().toISOString(),
      resolutionMs: RESOLUTION_MS,
      samples: histogram.count,
      p50: empty ? null : delay(histogram.percentile(50)),
      p99: empty ? null : delay(histogram.percentile(99)),
      max: empty ? null : delay(histogram.max),
      mean: empty ? null : delay(histogram.mean),
      raw: empty
        ? null
        : {
            min: round(ms(histogram.min)),
            p50: round(ms(histogram.percentile(50))),
            p99: round(ms(histogram.percentile(99))),
            max: round(ms(histogram.max)),
          },
    };
    try {
      appendFileSync(file, `${JSON.stringify(record)}\n`);
    } catch {
      // A probe must never take the server down.
    }
    histogram.reset();
    windowStart = Date.now();
  };

  process.on('SIGUSR2', () => write('SIGUSR2'));
  process.on('exit', () => {
    write('exit');
    histogram.disable();
  });
}
