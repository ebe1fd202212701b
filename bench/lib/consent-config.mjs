/**
 * Options and goals of the consent benchmark (`bench/consents.mjs`; bench/README.md, "Consent
 * benchmark"). Parsed once, at import; an invalid value throws before anything is started. The
 * shared options (BENCH_PG_URL, BENCH_SKIP_BUILD) come from config.mjs.
 */

import { envInt } from './config.mjs';

/** The BENCH_* options of the consent benchmark. */
export const consentOpts = {
  individuals: envInt('BENCH_INDIVIDUALS', 1_000_000, 1000),
  seconds: envInt('BENCH_CONSENT_SECONDS', 10),
  warmupSeconds: envInt('BENCH_CONSENT_WARMUP_SECONDS', 2, 0),
  readConnections: envInt('BENCH_READ_CONNECTIONS', 16),
  patchConnections: envInt('BENCH_PATCH_CONNECTIONS', 32),
  pageLimit: envInt('BENCH_PAGE_LIMIT', 50),
  specialTimeoutSeconds: envInt('BENCH_SPECIAL_TIMEOUT_SECONDS', 300),
  deadlineSeconds: envInt('BENCH_DEADLINE_SECONDS', 1200),
  /** 1: run only (f), the special consent request (webhook, FCM, APNs), after the dataset. */
  specialOnly: envInt('BENCH_SPECIAL_ONLY', 0, 0) === 1,
  /** 1: run only (g), the organisation events (consent-events.mjs), after the dataset. */
  eventsOnly: envInt('BENCH_EVENTS_ONLY', 0, 0) === 1,
  /** Events the feed read of (g) reads at least (generated first when the feed holds fewer). */
  feedEvents: envInt('BENCH_FEED_EVENTS', 100_000),
  /** Measured bulk checks of (g), sequential, after `checkWarmup` unmeasured ones. */
  checkRequests: envInt('BENCH_CHECK_REQUESTS', 200),
  checkWarmup: envInt('BENCH_CHECK_WARMUP', 20, 0),
  /** Individuals per connection of (g)'s spread storm (more webhook lanes); 0: no spread storm. */
  eventsSpread: envInt('BENCH_EVENTS_SPREAD', 16, 0),
  /** Longest wait, after the webhook storm of (g), for its receiver to get every committed event. */
  eventsDrainTimeoutSeconds: envInt('BENCH_EVENTS_DRAIN_TIMEOUT_SECONDS', 120),
};

/** Depth of the deep consented-users page: past this fraction of the listing (900,000 of 1,000,000). */
export const DEEP_FRACTION = 0.9;

/** The consent benchmark's goals (docs/benchmarks.md). */
export const CONSENT_GOALS = {
  readPerSecond: 3000,
  readP99Ms: 20,
  patchPerSecond: 1500,
  pageP99Ms: 20,
  deepToFirstMax: 2,
  notificationsPerSecond: 2000,
  /** (g) PATCH/s with a webhook subscribed to every consent event ÷ PATCH/s without. */
  webhookPatchRatio: 0.9,
  /** (g) Receipt at the webhook minus the event's `time`, p99 (milliseconds). */
  eventLatencyP99Ms: 1000,
  /**
   * (g) "Delivered/s ≥ PATCH rate, no growing backlog", made testable: at the storm's end the backlog holds at most
   * `backlogMaxSeconds` of the events committed per second (what the latency goal allows to be in flight), and after
   * its first second (the ramp from an empty backlog to its steady size) the backlog grows by at most
   * `backlogSlopeFraction` of them per second.
   */
  backlogMaxSeconds: 1,
  backlogSlopeFraction: 0.05,
  /** (g) Events/s read from the feed, pages of 1000. */
  feedEventsPerSecond: 20_000,
  /** (g) Bulk consent check of 1000 individuals, p99 (milliseconds). */
  checkP99Ms: 50,
};

/** The owner of the demo organisation (examples/demo.json): Owner, Admin, Dpo and Developer of acme. */
export const OWNER = { username: 'owner@acme.example', password: 'demo-owner-passphrase' };
