/**
 * Runtime configuration, read once from the environment.
 *
 * Every setting is documented in docs/configuration.md, whose table is generated from the
 * settings list of src/config-settings.ts; test/docs.test.ts checks that list against the names and
 * defaults read here.
 */
import {
  bindHost,
  bool,
  ConfigError,
  checkThreadPoolSize,
  clientId,
  corsOrigins,
  dataDir,
  dnsServers,
  hostList,
  httpUrl,
  int,
  logLevel,
  MAX_TIMER_SECONDS,
  mailbox,
  smtpUrl,
} from './config-parse.js';
import { type PushEndpoints, pushEndpoints } from './config-push.js';
import type { Argon2Params } from './identity/passwords.js';
import type { RateLimit } from './ratelimit/limit.js';

export { ConfigError } from './config-parse.js';

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
   * statements, one for the rest, `src/db/open.ts`; the LISTEN connection comes on top). Few connections kept busy
   * beat many that the database server's cores time-slice.
   */
  dbPoolSize: number;
  /**
   * Consent record reads in flight at once on PostgreSQL (count; `ASSENT_DB_READ_SLOTS`, default 2):
   * reads beyond it wait and then share one statement (`RecordViews`, src/consent/views.ts).
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
  /** Endpoints of FCM and APNs (config-push.ts). */
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
 * Reads the configuration from environment variables.
 *
 * @param env - the environment, `process.env` by default.
 * @returns the resolved configuration.
 * @throws {ConfigError} when a variable holds an unusable value, or when `DATABASE_URL` is
 *   set without `ASSENT_SECRET` (docs/decisions/0003-operator-held-master-key.md: a shared database needs an
 * operator-held master key).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = bindHost(env.HOST);
  const publicUrl = httpUrl(
    'ASSENT_PUBLIC_URL',
    env.ASSENT_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
  );
  checkThreadPoolSize(env);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const secret = env.ASSENT_SECRET || undefined;
  if (databaseUrl && !secret) {
    throw new ConfigError(
      'ASSENT_SECRET is required with DATABASE_URL: ' +
        'the master key encrypts signing keys and must be held by the operator, not generated per machine',
    );
  }
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError('ASSENT_SECRET must be at least 32 characters (e.g. `openssl rand -base64 32`)');
  }
  const lockSeconds = int(env, 'ASSENT_LOCK_SECONDS', 900);
  return {
    port,
    host,
    publicUrl,
    databaseUrl,
    dbPoolSize: int(env, 'ASSENT_DB_POOL_SIZE', 10),
    dbReadSlots: int(env, 'ASSENT_DB_READ_SLOTS', 2),
    dbWriteSlots: int(env, 'ASSENT_DB_WRITE_SLOTS', 2),
    dataDir: dataDir(env.ASSENT_DATA_DIR),
    secret,
    accessTokenTtl: int(env, 'ASSENT_ACCESS_TOKEN_TTL', 900),
    refreshTokenTtl: int(env, 'ASSENT_REFRESH_TOKEN_TTL', 36000),
    refreshReuseGraceSeconds: int(env, 'ASSENT_REFRESH_REUSE_GRACE_SECONDS', 5, 0),
    apiKeyTtl: int(env, 'ASSENT_API_KEY_TTL_DAYS', 360) * 86400,
    defaultClientId: clientId(env.ASSENT_DEFAULT_CLIENT_ID),
    argon2: {
      memoryCost: int(env, 'ASSENT_ARGON2_MEMORY_KIB', 19456, 19456),
      timeCost: int(env, 'ASSENT_ARGON2_ITERATIONS', 2, 2),
      parallelism: int(env, 'ASSENT_ARGON2_PARALLELISM', 1, 1),
    },
    throttleAccount: {
      delayAfter: int(env, 'ASSENT_ACCOUNT_DELAY_AFTER', 3),
      lockAfter: int(env, 'ASSENT_ACCOUNT_LOCK_AFTER', 10),
      lockSeconds,
      maxDelaySeconds: 60,
      windowSeconds: lockSeconds,
    },
    throttleIp: {
      delayAfter: int(env, 'ASSENT_IP_DELAY_AFTER', 20),
      lockAfter: int(env, 'ASSENT_IP_LOCK_AFTER', 100),
      lockSeconds,
      maxDelaySeconds: 60,
      windowSeconds: lockSeconds,
    },
    forgotPerUsername: {
      max: int(env, 'ASSENT_FORGOT_PER_USERNAME', 3),
      windowSeconds: int(env, 'ASSENT_FORGOT_WINDOW_SECONDS', 900),
    },
    forgotPerIp: {
      max: int(env, 'ASSENT_FORGOT_PER_IP', 30),
      windowSeconds: int(env, 'ASSENT_FORGOT_WINDOW_SECONDS', 900),
    },
    walletPerIp: { max: int(env, 'ASSENT_WALLET_PER_IP', 3000), windowSeconds: 60 },
    invitationTtlSeconds: int(env, 'ASSENT_INVITATION_TTL_SECONDS', 7 * 24 * 3600),
    askMeSweepSeconds: int(env, 'ASSENT_ASKME_SWEEP_SECONDS', 60, 1, MAX_TIMER_SECONDS),
    purgeSeconds: int(env, 'ASSENT_PURGE_SECONDS', 300, 1, MAX_TIMER_SECONDS),
    trustProxy: bool(env, 'ASSENT_TRUST_PROXY'),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: mailbox(env.ASSENT_MAIL_FROM, `Assent <no-reply@${new URL(publicUrl).hostname}>`),
    webhookAllowHttpHosts: hostList('ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS', env.ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS),
    federationAllowHttpHosts: hostList('ASSENT_FEDERATION_ALLOW_HTTP_HOSTS', env.ASSENT_FEDERATION_ALLOW_HTTP_HOSTS),
    samlClockSkewSeconds: int(env, 'ASSENT_SAML_CLOCK_SKEW_SECONDS', 60, 0, 600),
    walletAllowHttpHosts: hostList('ASSENT_WALLET_ALLOW_HTTP_HOSTS', env.ASSENT_WALLET_ALLOW_HTTP_HOSTS),
    corsOrigins: corsOrigins(env.ASSENT_CORS_ORIGINS),
    dnsServers: dnsServers(env.ASSENT_DNS_SERVERS),
    jobLeaseSeconds: int(env, 'ASSENT_JOB_LEASE_SECONDS', 60, 1, MAX_TIMER_SECONDS),
    notifyBatchSize: int(env, 'ASSENT_NOTIFY_BATCH_SIZE', 500),
    anonymousLimit: {
      max: int(env, 'ASSENT_ANONYMOUS_LIMIT', 10000),
      windowSeconds: int(env, 'ASSENT_ANONYMOUS_WINDOW_SECONDS', 3600),
    },
    webhookRetries: int(env, 'ASSENT_WEBHOOK_RETRIES', 5, 0),
    webhookRetryDelaySeconds: int(env, 'ASSENT_WEBHOOK_RETRY_DELAY_SECONDS', 30, 1, MAX_TIMER_SECONDS),
    push: pushEndpoints(env, (message) => new ConfigError(message)),
    requestTimeoutSeconds: int(env, 'ASSENT_REQUEST_TIMEOUT_SECONDS', 60, 1, MAX_TIMER_SECONDS),
    shutdownGraceSeconds: int(env, 'ASSENT_SHUTDOWN_GRACE_SECONDS', 10, 1, MAX_TIMER_SECONDS),
    logLevel: logLevel(env.LOG_LEVEL),
  };
}
