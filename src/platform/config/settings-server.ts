/**
 * The settings of the server, its store and the process (docs/configuration.md), declared once
 * (src/platform/config/declare.ts): `loadConfig` reads them and the configuration table is written from them.
 */
import { boolean, integer, oneOf, type Settings, text } from './declare.js';
import { bindHost, ConfigError, dataDir, httpUrl } from './parse.js';

/** pino's levels (pino documentation, "level"). */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The HTTP server and the store; first in the table. */
export const SERVER_SETTINGS = {
  port: integer({
    env: 'PORT',
    default: 8080,
    min: 0,
    max: 65535,
    unit: '',
    meaning: 'HTTP port (0 takes any free port)',
  }),
  host: text({
    env: 'HOST',
    default: '127.0.0.1',
    unit: '',
    meaning: 'interface to bind: an IP address (IPv6 without brackets) or a host name',
    parse: bindHost,
  }),
  /** Undefined when unset: `loadConfig` then makes it from `HOST` and `PORT`. */
  publicUrl: text({
    env: 'ASSENT_PUBLIC_URL',
    default: 'http://HOST:PORT',
    unit: 'URL',
    meaning:
      'public origin, an `http://` or `https://` URL without credentials, query or fragment; `{base_url}` is ' +
      'this plus `/v1`; also the `iss` and `aud` of every token',
    parse: (raw) => (raw === undefined ? undefined : httpUrl('ASSENT_PUBLIC_URL', raw)),
  }),
  databaseUrl: text({
    env: 'DATABASE_URL',
    default: 'unset',
    unit: 'URL',
    meaning: '`postgres://…` to use PostgreSQL; unset means the embedded PGlite store',
    parse: (raw) => {
      if (raw && !/^postgres(ql)?:\/\//.test(raw))
        throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
      return raw;
    },
  }),
  dbPoolSize: integer({
    env: 'ASSENT_DB_POOL_SIZE',
    default: 10,
    unit: 'connections',
    meaning:
      "most PostgreSQL connections each of the process's two pools opens (named statements, " +
      'everything else; the one LISTEN connection and the webhook delivery thread’s four, `assent-webhook-delivery`, ' +
      "come on top); requests beyond it wait in the pool's queue",
  }),
  dbWriteSlots: integer({
    env: 'ASSENT_DB_WRITE_SLOTS',
    default: 2,
    unit: 'statements',
    meaning:
      'consent changes, and refresh-token rotations, in flight at once on PostgreSQL; ' +
      'more wait and then share one statement and one commit (see [consents.md](consents.md) ' +
      '"Group commit" and [identity.md](identity.md) "Sessions")',
  }),
  dbReadSlots: integer({
    env: 'ASSENT_DB_READ_SLOTS',
    default: 2,
    unit: 'statements',
    meaning:
      'consent record reads in flight at once on PostgreSQL; ' +
      'reads beyond them wait and then share one statement (see [consents.md](consents.md) "Batched reads")',
  }),
  dataDir: text({
    env: 'ASSENT_DATA_DIR',
    default: './data',
    unit: 'path',
    meaning:
      'embedded store directory: PGlite files, the lock `assent.lock`, ' +
      'the admin socket `assent.sock`, and the generated key file `master.key`',
    parse: dataDir,
  }),
  /** Its pairing with `DATABASE_URL` is checked by `loadConfig`. */
  secret: text({
    env: 'ASSENT_SECRET',
    default: 'unset',
    unit: '',
    meaning:
      'master key material (≥ 32 characters). Without it the embedded store ' +
      'generates `master.key` (mode 0600); with `DATABASE_URL` it is required',
    parse: (raw) => {
      if (raw !== undefined && raw.length < 32)
        throw new ConfigError('ASSENT_SECRET must be at least 32 characters (e.g. `openssl rand -base64 32`)');
      return raw;
    },
  }),
} satisfies Settings;

/** Background jobs, requests and the process; last in the table. */
export const PROCESS_SETTINGS = {
  jobLeaseSeconds: integer({
    env: 'ASSENT_JOB_LEASE_SECONDS',
    default: 60,
    timer: true,
    unit: 'seconds',
    meaning:
      "how long a batch may run before another process takes it over (a crashed process's batch is resumed after this)",
  }),
  requestTimeoutSeconds: integer({
    env: 'ASSENT_REQUEST_TIMEOUT_SECONDS',
    default: 60,
    timer: true,
    unit: 'seconds',
    meaning:
      'longest time a client may take to send one request, headers and body; past it the answer is a 408 `{"Code", ' +
      '"Message"}` and the socket is closed (checked every quarter of it, at most every 30 s)',
  }),
  shutdownGraceSeconds: integer({
    env: 'ASSENT_SHUTDOWN_GRACE_SECONDS',
    default: 10,
    timer: true,
    unit: 'seconds',
    meaning:
      'after SIGTERM or SIGINT, how long `assent serve` waits for in-flight requests before it exits with status 1, ' +
      'logging the method and route of each request still running',
  }),
  trustProxy: boolean({
    env: 'ASSENT_TRUST_PROXY',
    meaning: '`true` behind a reverse proxy: the client IP is then taken from `X-Forwarded-For`; else `false`',
  }),
  logLevel: oneOf({
    env: 'LOG_LEVEL',
    values: LOG_LEVELS,
    default: 'info',
    unit: '',
    meaning: 'pino level',
  }),
  /**
   * Read by bin/thread-pool.cjs before anything loads, which sets it when unset; here only checked:
   * libuv takes 1 to 1024 threads and silently uses its default of 4 for anything else (libuv
   * documentation, "Thread pool work scheduling").
   */
  uvThreadPoolSize: integer({
    env: 'UV_THREADPOOL_SIZE',
    default: 4,
    shown: 'one per core, at least 2',
    max: 1024,
    unit: 'threads',
    meaning:
      "Node's libuv thread pool, where argon2id hashing and verification run (as do file reads and `dns.lookup`). " +
      "The `assent` command (bin/thread-pool.cjs) sets it before anything loads when it is unset: libuv's own " +
      'default of 4 would cap password checks at 4 cores on a bigger machine and, on a smaller one, time-slice more ' +
      '19 MiB verifications than there are cores (in A/B login storms on 2 cores, a pool of 2 gave 3.5-9 % more ' +
      'logins/s than 4 in four of five runs, and 5 % fewer in one). At least 2, so that a slow DNS lookup, which ' +
      "libuv lets take at most half the pool, never holds all of it (1 to 1024 is libuv's range)",
  }),
} satisfies Settings;
