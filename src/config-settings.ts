/**
 * The settings an operator can give Assent, as data: the source of the configuration table of
 * docs/configuration.md, which `npm run docs` writes from this list. `loadConfig` (src/config.ts)
 * reads the same variables; test/docs.test.ts fails when a variable read there is missing here,
 * when a numeric default differs, or when the page was not regenerated.
 */
import { PUSH_SETTINGS } from './config-push.js';

/** One environment variable of the configuration table. */
export interface Setting {
  /** The environment variable. */
  env: string;
  /** The default, as the table shows it (a number is checked against `loadConfig`'s). */
  default: string;
  /** Unit of the value (`seconds`, `days`, `KiB`, `count`, …), or `""` when it has none. */
  unit: string;
  /** What it sets, in Markdown, for the operator. */
  meaning: string;
}

/** Every setting, in the order of the table. */
export const SETTINGS: readonly Setting[] = [
  { env: 'PORT', default: '8080', unit: '', meaning: 'HTTP port (0 to 65535; 0 takes any free port)' },
  {
    env: 'HOST',
    default: '127.0.0.1',
    unit: '',
    meaning: 'interface to bind: an IP address (IPv6 without brackets) or a host name',
  },
  {
    env: 'ASSENT_PUBLIC_URL',
    default: 'http://HOST:PORT',
    unit: 'URL',
    meaning:
      'public origin, an `http://` or `https://` URL without credentials, query or fragment; `{base_url}` is ' +
      'this plus `/v1`; also the `iss` and `aud` of every token',
  },
  {
    env: 'DATABASE_URL',
    default: 'unset',
    unit: 'URL',
    meaning: '`postgres://…` to use PostgreSQL; unset means the embedded PGlite store',
  },
  {
    env: 'ASSENT_DB_POOL_SIZE',
    default: '10',
    unit: 'connections',
    meaning:
      "most PostgreSQL connections each of the process's two pools opens (named statements, " +
      "everything else; the one LISTEN connection comes on top); requests beyond it wait in the pool's queue",
  },
  {
    env: 'ASSENT_DB_WRITE_SLOTS',
    default: '2',
    unit: 'statements',
    meaning:
      'consent changes, and refresh-token rotations, in flight at once on PostgreSQL; ' +
      'more wait and then share one statement and one commit (see [consents.md](consents.md) ' +
      '"Group commit" and [identity.md](identity.md) "Sessions")',
  },
  {
    env: 'ASSENT_DB_READ_SLOTS',
    default: '2',
    unit: 'statements',
    meaning:
      'consent record reads in flight at once on PostgreSQL; ' +
      'reads beyond them wait and then share one statement (see [consents.md](consents.md) "Batched reads")',
  },
  {
    env: 'ASSENT_DATA_DIR',
    default: './data',
    unit: 'path',
    meaning:
      'embedded store directory: PGlite files, the lock `assent.lock`, ' +
      'the admin socket `assent.sock`, and the generated key file `master.key`',
  },
  {
    env: 'ASSENT_SECRET',
    default: 'unset',
    unit: '',
    meaning:
      'master key material (≥ 32 characters). Without it the embedded store ' +
      'generates `master.key` (mode 0600); with `DATABASE_URL` it is required',
  },
  { env: 'ASSENT_ACCESS_TOKEN_TTL', default: '900', unit: 'seconds', meaning: 'access-token lifetime' },
  { env: 'ASSENT_REFRESH_TOKEN_TTL', default: '36000', unit: 'seconds', meaning: 'refresh-token lifetime' },
  {
    env: 'ASSENT_REFRESH_REUSE_GRACE_SECONDS',
    default: '5',
    unit: 'seconds',
    meaning:
      'refresh-token reuse grace period (0: none): a rotated refresh token presented again ' +
      'by its client within it, while its successor is unused, answers the same successor ' +
      'tokens instead of revoking the session (see [identity.md](identity.md) "Sessions")',
  },
  { env: 'ASSENT_API_KEY_TTL_DAYS', default: '360', unit: 'days', meaning: 'API-key lifetime' },
  {
    env: 'ASSENT_DEFAULT_CLIENT_ID',
    default: 'first registered client',
    unit: '',
    meaning: 'client a login binds its session to when the body names no `clientid`',
  },
  { env: 'ASSENT_ARGON2_MEMORY_KIB', default: '19456', unit: 'KiB', meaning: 'argon2id memory (minimum 19456)' },
  { env: 'ASSENT_ARGON2_ITERATIONS', default: '2', unit: 'count', meaning: 'argon2id iterations (minimum 2)' },
  { env: 'ASSENT_ARGON2_PARALLELISM', default: '1', unit: 'lanes', meaning: 'argon2id lanes (minimum 1)' },
  {
    env: 'ASSENT_ACCOUNT_DELAY_AFTER',
    default: '3',
    unit: 'count',
    meaning: 'failures per account before delays start',
  },
  { env: 'ASSENT_ACCOUNT_LOCK_AFTER', default: '10', unit: 'count', meaning: 'failures per account that lock it' },
  { env: 'ASSENT_IP_DELAY_AFTER', default: '20', unit: 'count', meaning: 'failures per client IP before delays start' },
  { env: 'ASSENT_IP_LOCK_AFTER', default: '100', unit: 'count', meaning: 'failures per client IP that lock it' },
  {
    env: 'ASSENT_LOCK_SECONDS',
    default: '900',
    unit: 'seconds',
    meaning: 'lock duration, and the window after which failures are forgotten',
  },
  {
    env: 'ASSENT_FORGOT_PER_USERNAME',
    default: '3',
    unit: 'count',
    meaning: 'forgotten-password requests per username (existing or not) per window; more is a 429',
  },
  {
    env: 'ASSENT_FORGOT_PER_IP',
    default: '30',
    unit: 'count',
    meaning: 'forgotten-password requests per client IP per window; more is a 429',
  },
  {
    env: 'ASSENT_FORGOT_WINDOW_SECONDS',
    default: '900',
    unit: 'seconds',
    meaning: 'window of both forgotten-password limits',
  },
  {
    env: 'ASSENT_INVITATION_TTL_SECONDS',
    default: '604800',
    unit: 'seconds',
    meaning: 'how long an invitation to an organisation stays usable (7 days)',
  },
  {
    env: 'ASSENT_ASKME_SWEEP_SECONDS',
    default: '60',
    unit: 'seconds',
    meaning:
      'how often AskMe consents whose days ran out are stored as Disallow, with a history event; ' +
      'a round still running when the next is due makes that one skip (so does the purge below)',
  },
  {
    env: 'ASSENT_PURGE_SECONDS',
    default: '300',
    unit: 'seconds',
    meaning:
      'how often login-throttle counters and rate-limit windows that no longer decide anything (past their window, ' +
      'no block in force) are deleted, and refresh answers kept past their reuse grace period erased',
  },
  {
    env: 'SMTP_URL',
    default: 'unset',
    unit: 'URL',
    meaning:
      '`smtp://` or `smtps://` relay (user and password in the URL) for mail; ' +
      'unset writes each mail as a `.eml` file into `ASSENT_DATA_DIR/outbox` (mode 0600)',
  },
  {
    env: 'ASSENT_MAIL_FROM',
    default: 'Assent <no-reply@PUBLIC_HOST>',
    unit: '',
    meaning: '`From` of every mail: one address, `local@domain` or `Name <local@domain>`',
  },
  {
    env: 'ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS',
    default: 'unset',
    unit: 'host list',
    meaning:
      'comma-separated hosts a webhook may reach over plain `http` and at loopback or private addresses ' +
      '(development and tests, e.g. `127.0.0.1`; host names or IP addresses, IPv6 in brackets, no port); every ' +
      'other webhook must be `https` to a public address',
  },
  {
    env: 'ASSENT_WALLET_PER_IP',
    default: '3000',
    unit: 'count',
    meaning:
      "requests per client IP per minute to the wallet's endpoints (request object and response, docs/wallet.md); more is a 429",
  },
  {
    env: 'ASSENT_WALLET_ALLOW_HTTP_HOSTS',
    default: 'unset',
    unit: 'host list',
    meaning:
      'comma-separated hosts whose status lists (of wallet credentials) Assent may fetch over plain `http`, ' +
      'and reach at loopback or private addresses (development and tests, e.g. `127.0.0.1`); every other ' +
      'status list must be `https` at a public address',
  },
  {
    env: 'ASSENT_FEDERATION_ALLOW_HTTP_HOSTS',
    default: 'unset',
    unit: 'host list',
    meaning:
      "comma-separated hosts an organisation's IdP URLs (and app redirect URIs) " +
      'may name over plain `http`, and reach at loopback or private addresses (development and tests, ' +
      'e.g. `127.0.0.1`); every other IdP URL must be `https` to a public address',
  },
  {
    env: 'ASSENT_SAML_CLOCK_SKEW_SECONDS',
    default: '60',
    unit: 'seconds',
    meaning:
      "largest difference between Assent's clock and a SAML IdP's accepted on an assertion's `NotBefore` and " +
      "`NotOnOrAfter` and on a LogoutRequest's `IssueInstant` and `NotOnOrAfter` (0 to 600; ADFS deployments " +
      'often need more than the default)',
  },
  {
    env: 'ASSENT_CORS_ORIGINS',
    default: 'unset',
    unit: 'origin list',
    meaning:
      'comma-separated exact origins (`https://dashboard.example.org`: scheme, host, port if not the default; ' +
      'no path, no `*`) of browser apps allowed to call the API from another origin, besides the ' +
      'origins of the organisations\' app redirect URIs (see [api.md](api.md) "CORS and security headers")',
  },
  {
    env: 'ASSENT_DNS_SERVERS',
    default: 'unset',
    unit: 'server list',
    meaning:
      'comma-separated `IP[:PORT]` DNS servers that federation requests resolve host names ' +
      'with (`dns.promises.Resolver`); unset means the system resolver (`dns.lookup`)',
  },
  {
    env: 'ASSENT_NOTIFY_BATCH_SIZE',
    default: '500',
    unit: 'individuals',
    meaning: 'individuals claimed per batch of a special consent request',
  },
  {
    env: 'ASSENT_ANONYMOUS_LIMIT',
    default: '10000',
    unit: 'users',
    meaning: 'anonymous users one organisation may add per window; past it, 429 with `Retry-After`',
  },
  {
    env: 'ASSENT_ANONYMOUS_WINDOW_SECONDS',
    default: '3600',
    unit: 'seconds',
    meaning: 'the window of `ASSENT_ANONYMOUS_LIMIT`',
  },
  {
    env: 'ASSENT_WEBHOOK_RETRIES',
    default: '5',
    unit: 'count',
    meaning: 'retries of a failed webhook or mail delivery after the first attempt (0: none)',
  },
  {
    env: 'ASSENT_WEBHOOK_RETRY_DELAY_SECONDS',
    default: '30',
    unit: 'seconds',
    meaning: 'delay before the first retry, doubled for each further one',
  },
  ...PUSH_SETTINGS,
  {
    env: 'ASSENT_JOB_LEASE_SECONDS',
    default: '60',
    unit: 'seconds',
    meaning:
      "how long a batch may run before another process takes it over (a crashed process's batch is resumed after this)",
  },
  {
    env: 'ASSENT_REQUEST_TIMEOUT_SECONDS',
    default: '60',
    unit: 'seconds',
    meaning:
      'longest time a client may take to send one request, headers and body; past it the answer is a 408 `{"Code", ' +
      '"Message"}` and the socket is closed (checked every quarter of it, at most every 30 s)',
  },
  {
    env: 'ASSENT_SHUTDOWN_GRACE_SECONDS',
    default: '10',
    unit: 'seconds',
    meaning:
      'after SIGTERM or SIGINT, how long `assent serve` waits for in-flight requests before it exits with status 1, ' +
      'logging the method and route of each request still running',
  },
  {
    env: 'ASSENT_TRUST_PROXY',
    default: 'false',
    unit: 'boolean',
    meaning: '`true` behind a reverse proxy: the client IP is then taken from `X-Forwarded-For`; else `false`',
  },
  {
    env: 'LOG_LEVEL',
    default: 'info',
    unit: '',
    meaning: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  },
  {
    env: 'UV_THREADPOOL_SIZE',
    default: 'one per core, at least 2',
    unit: 'threads',
    meaning:
      "Node's libuv thread pool, where argon2id hashing and verification run (as do file reads and `dns.lookup`). " +
      "The `assent` command (bin/thread-pool.cjs) sets it before anything loads when it is unset: libuv's own " +
      'default of 4 would cap password checks at 4 cores on a bigger machine and, on a smaller one, time-slice more ' +
      '19 MiB verifications than there are cores (in A/B login storms on 2 cores, a pool of 2 gave 3.5-9 % more ' +
      'logins/s than 4 in four of five runs, and 5 % fewer in one). At least 2, so that a slow DNS lookup, which ' +
      "libuv lets take at most half the pool, never holds all of it. Set, it must be 1 to 1024 (libuv's range)",
  },
];
