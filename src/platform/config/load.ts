/**
 * Runtime configuration, read once from the environment.
 *
 * Every setting is declared once, in the settings groups of src/platform/config/settings.ts (type, default,
 * bounds or allowed values, unit, meaning; docs/development.md "Generated documentation"):
 * `loadConfig` reads the environment only through them, and docs/configuration.md's table is
 * generated from them. `Config` is built from their parsed values, so tsc checks the two agree.
 */

import type { RateLimit } from '../ratelimit/limit.js';
import { readSettings } from './declare.js';
import { ConfigError, httpUrl } from './parse.js';
import { SETTING_GROUPS } from './settings.js';
import type { PushEndpoints } from './settings-push.js';

export { ConfigError } from './parse.js';

/** argon2id cost parameters. */
export interface Argon2Params {
  /** Memory (KiB). */
  memoryCost: number;
  /** Iterations (count). */
  timeCost: number;
  /** Lanes (count). */
  parallelism: number;
}

/** Brute-force thresholds for one kind of key (an account or a client IP). ASVS 5.0 V6.3.1. */
export interface ThrottlePolicy {
  /** Consecutive failures after which each further attempt must wait (count). */
  delayAfter: number;
  /** Consecutive failures that lock the key outright (count). */
  lockAfter: number;
  /** How long a lock lasts (seconds). */
  lockSeconds: number;
  /** Longest single delay between attempts before the lock (seconds). */
  maxDelaySeconds: number;
  /** Failures older than this are forgotten (seconds). */
  windowSeconds: number;
}

/** The whole configuration of one Assent process. */
export interface Config {
  /** TCP port of the HTTP server. */
  port: number;
  /** Interface the HTTP server binds to. */
  host: string;
  /** Public origin without a trailing slash, e.g. `https://id.example.org`; `{base_url}` is this plus `/v1`. */
  publicUrl: string;
  /** `postgres://` URL of a real PostgreSQL, or undefined for the embedded PGlite store. */
  databaseUrl: string | undefined;
  /**
   * Most connections to PostgreSQL each of the process's two pools opens (count; one pool for named
   * statements, one for the rest, `src/platform/db/open.ts`; the LISTEN connection comes on top). Few connections kept busy
   * beat many that the database server's cores time-slice.
   */
  dbPoolSize: number;
  /**
   * Consent record reads in flight at once on PostgreSQL (count; `ASSENT_DB_READ_SLOTS`, default 2):
   * reads beyond it wait and then share one statement (`RecordViews`, src/consent/records/reads.ts).
   */
  dbReadSlots: number;
  /**
   * Write statements of one kind in flight at once on PostgreSQL (count; `ASSENT_DB_WRITE_SLOTS`,
   * default 2): consent changes, and refresh-token rotations, beyond it wait and then share one
   * statement and one commit (`GroupCommit`, `IdentityService.refresh`).
   */
  dbWriteSlots: number;
  /** Directory of the embedded store, its lock and its generated master key (absolute path). */
  dataDir: string;
  /** Master key material from `ASSENT_SECRET`, or undefined to use the embedded key file. */
  secret: string | undefined;
  /** Access-token lifetime (seconds). */
  accessTokenTtl: number;
  /** Refresh-token lifetime (seconds). */
  refreshTokenTtl: number;
  /**
   * Refresh-token reuse grace period (seconds; 0 disables it): a rotated refresh token presented
   * again by its client within it, while its successor is unused, answers the same successor
   * tokens instead of revoking the session (docs/identity.md "Sessions"; RFC 9700 §4.14.2).
   */
  refreshReuseGraceSeconds: number;
  /** API-key lifetime (seconds). */
  apiKeyTtl: number;
  /** Client ID that a login without `clientid` binds its tokens to; undefined means the first registered client. */
  defaultClientId: string | undefined;
  /** argon2id parameters for new hashes. ASVS 5.0 V11.4.2 minimum: m=19456 KiB, t=2, p=1. */
  argon2: Argon2Params;
  /** Brute-force policy per account (username). */
  throttleAccount: ThrottlePolicy;
  /** Brute-force policy per client IP address. */
  throttleIp: ThrottlePolicy;
  /**
   * Forgotten-password requests allowed per normalised username and window (docs/api.md "User management"; ASVS 5.0 V2.4.1: mail bombing).
   */
  forgotPerUsername: RateLimit;
  /** Forgotten-password requests allowed per client IP and window (ASVS 5.0 V2.4.1, V6.3.8: enumeration at scale). */
  forgotPerIp: RateLimit;
  /** Requests per client IP and minute to the wallet's endpoints (ASVS 5.0 V2.4.1; docs/wallet.md "The verifier"). */
  walletPerIp: RateLimit;
  /**
   * How long an invitation to an organisation stays usable (seconds;
   * `ASSENT_INVITATION_TTL_SECONDS`, docs/consents.md "Invitations").
   */
  invitationTtlSeconds: number;
  /** How often expired AskMe consents are turned into Disallow events (seconds). */
  askMeSweepSeconds: number;
  /** How often stale login-throttle counters and rate-limit windows are deleted (seconds; `ASSENT_PURGE_SECONDS`). */
  purgeSeconds: number;
  /** Fastify `trustProxy`: true when behind a reverse proxy that sets X-Forwarded-For. */
  trustProxy: boolean;
  /** `smtp://` or `smtps://` URL of the mail relay; undefined writes mails to `<dataDir>/outbox`. */
  smtpUrl: string | undefined;
  /** RFC 5322 `From` of every mail Assent sends. */
  mailFrom: string;
  /** Hosts a webhook may reach over plain http and at private or loopback addresses (development, tests). */
  webhookAllowHttpHosts: string[];
  /**
   * Hosts an organisation's IdP URLs may name over plain http
   * and at private or loopback addresses (development, tests).
   */
  federationAllowHttpHosts: string[];
  /** Largest clock difference accepted on a SAML assertion's NotBefore and NotOnOrAfter (seconds, 0..600). */
  samlClockSkewSeconds: number;
  /**
   * Hosts whose credential status lists may be fetched over plain http and at private or
   * loopback addresses (development, tests).
   */
  walletAllowHttpHosts: string[];
  /**
   * Exact origins (`scheme://host[:port]`) of browser apps allowed to call the API cross-origin
   * (`ASSENT_CORS_ORIGINS`, comma-separated; docs/api.md "CORS and security headers"), besides the web
   * origins of the organisations' app redirect URIs.
   */
  corsOrigins: string[];
  /** DNS servers (`ip[:port]`) that outbound requests resolve with; empty means the system resolver (`dns.lookup`). */
  dnsServers: string[];
  /** Lease of one batch of a background job before another worker takes it over (seconds). */
  jobLeaseSeconds: number;
  /** Individuals claimed per batch of a special consent request (count). */
  notifyBatchSize: number;
  /** Anonymous users an organisation may create per window (docs/api.md "User management"; ASVS 5.0 V2.4.1). */
  anonymousLimit: { max: number; windowSeconds: number };
  /** Retries of a failed webhook delivery after its first attempt (count). */
  webhookRetries: number;
  /** Delay before the first webhook retry, doubled for each further one (seconds). */
  webhookRetryDelaySeconds: number;
  /** Event webhooks' retries and disabling (docs/events.md "Retries"; settings-outbound.ts). */
  eventWebhooks: {
    /** Delay before the first retry, doubled for each further one up to 6 hours (seconds). */
    firstRetrySeconds: number;
    /** How long a delivery is retried after its first attempt (seconds). */
    retryWindowSeconds: number;
    /** A webhook failing for this long is disabled (seconds). */
    disableAfterSeconds: number;
    /** Where deliveries are sent from on PostgreSQL: a thread of their own, or the request thread. */
    delivery: 'thread' | 'inline';
  };
  /** Endpoints of FCM and APNs (settings-push.ts). */
  push: PushEndpoints;
  /**
   * Longest time a client may take to send one request, headers and body (seconds;
   * `ASSENT_REQUEST_TIMEOUT_SECONDS`, default 60). Past it the answer is a 408 and the socket is
   * closed (OWASP API Security Top 10 2023, API4: slow requests holding connections).
   */
  requestTimeoutSeconds: number;
  /**
   * How long `assent serve` waits, after SIGTERM or SIGINT, for in-flight requests and background
   * rounds before it exits anyway with status 1, logging the requests still running (seconds;
   * `ASSENT_SHUTDOWN_GRACE_SECONDS`, default 10; docs/operations.md). Keep it below the
   * orchestrator's own grace period (Kubernetes: 30 s).
   */
  shutdownGraceSeconds: number;
  /** pino log level. */
  logLevel: string;
}

/**
 * Reads the configuration from environment variables, each through its declaration in
 * src/platform/config/settings.ts, in the table's order (docs/configuration.md).
 *
 * @param env - the environment, `process.env` by default.
 * @returns the resolved configuration.
 * @throws {ConfigError} when a variable holds an unusable value, or when `DATABASE_URL` is
 *   set without `ASSENT_SECRET` (docs/decisions/0003-operator-held-master-key.md: a shared database needs an
 * operator-held master key).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const server = readSettings(SETTING_GROUPS.server, env);
  if (server.databaseUrl && !server.secret) {
    throw new ConfigError(
      'ASSENT_SECRET is required with DATABASE_URL: ' +
        'the master key encrypts signing keys and must be held by the operator, not generated per machine',
    );
  }
  const id = readSettings(SETTING_GROUPS.identity, env);
  const out = readSettings(SETTING_GROUPS.outbound, env);
  const push: PushEndpoints = readSettings(SETTING_GROUPS.push, env);
  const proc = readSettings(SETTING_GROUPS.process, env);
  const { host, port } = server;
  const publicUrl =
    server.publicUrl ?? httpUrl('ASSENT_PUBLIC_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  const throttle = (delayAfter: number, lockAfter: number): ThrottlePolicy => ({
    delayAfter,
    lockAfter,
    lockSeconds: id.lockSeconds,
    maxDelaySeconds: 60,
    windowSeconds: id.lockSeconds,
  });
  return {
    port,
    host,
    publicUrl,
    databaseUrl: server.databaseUrl,
    dbPoolSize: server.dbPoolSize,
    dbReadSlots: server.dbReadSlots,
    dbWriteSlots: server.dbWriteSlots,
    dataDir: server.dataDir,
    secret: server.secret,
    accessTokenTtl: id.accessTokenTtl,
    refreshTokenTtl: id.refreshTokenTtl,
    refreshReuseGraceSeconds: id.refreshReuseGraceSeconds,
    apiKeyTtl: id.apiKeyTtlDays * 86400,
    defaultClientId: id.defaultClientId,
    argon2: { memoryCost: id.argon2MemoryKib, timeCost: id.argon2Iterations, parallelism: id.argon2Parallelism },
    throttleAccount: throttle(id.accountDelayAfter, id.accountLockAfter),
    throttleIp: throttle(id.ipDelayAfter, id.ipLockAfter),
    forgotPerUsername: { max: id.forgotPerUsername, windowSeconds: id.forgotWindowSeconds },
    forgotPerIp: { max: id.forgotPerIp, windowSeconds: id.forgotWindowSeconds },
    walletPerIp: { max: out.walletPerIp, windowSeconds: 60 },
    invitationTtlSeconds: id.invitationTtlSeconds,
    askMeSweepSeconds: out.askMeSweepSeconds,
    purgeSeconds: out.purgeSeconds,
    trustProxy: proc.trustProxy,
    smtpUrl: out.smtpUrl,
    mailFrom: out.mailFrom ?? `Assent <no-reply@${new URL(publicUrl).hostname}>`,
    webhookAllowHttpHosts: out.webhookAllowHttpHosts,
    federationAllowHttpHosts: out.federationAllowHttpHosts,
    samlClockSkewSeconds: out.samlClockSkewSeconds,
    walletAllowHttpHosts: out.walletAllowHttpHosts,
    corsOrigins: out.corsOrigins,
    dnsServers: out.dnsServers,
    jobLeaseSeconds: proc.jobLeaseSeconds,
    notifyBatchSize: out.notifyBatchSize,
    anonymousLimit: { max: out.anonymousLimit, windowSeconds: out.anonymousWindowSeconds },
    webhookRetries: out.webhookRetries,
    webhookRetryDelaySeconds: out.webhookRetryDelaySeconds,
    eventWebhooks: {
      firstRetrySeconds: out.eventWebhookFirstRetrySeconds,
      retryWindowSeconds: out.eventWebhookRetryWindowSeconds,
      disableAfterSeconds: out.eventWebhookDisableAfterSeconds,
      delivery: out.eventWebhookDelivery,
    },
    push,
    requestTimeoutSeconds: proc.requestTimeoutSeconds,
    shutdownGraceSeconds: proc.shutdownGraceSeconds,
    logLevel: proc.logLevel,
  };
}
