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
};

/** The owner of the demo organisation (examples/demo.json): Owner, Admin, Dpo and Developer of acme. */
export const OWNER = { username: 'owner@acme.example', password: 'demo-owner-passphrase' };
