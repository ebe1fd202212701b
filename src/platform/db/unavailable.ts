/**
 * Tells a database outage (the server restarting, failing over, unreachable, or this session
 * killed) from every other error, so that HTTP answers it with 503 and `Retry-After` rather than
 * 500: a client or load balancer can then retry instead of reporting a bug (RFC 9110 §15.6.4).
 */
import { safeErrorMessage } from '../util/errors.js';

/**
 * How long a query waits for a connection (milliseconds): to open one, or for a busy pool to hand
 * one over. Past it the query fails, answered 503 (`isDatabaseUnavailable`): a database that stopped
 * answering without refusing (a failover whose old address swallows packets) must not hold requests
 * forever.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * SQLSTATEs of an outage (https://www.postgresql.org/docs/current/errcodes-appendix.html):
 * 57P01 admin_shutdown (also `pg_terminate_backend`), 57P02 crash_shutdown, 57P03
 * cannot_connect_now (starting up, shutting down, recovering), 53300 too_many_connections. Class
 * 08 (connection exception) is matched by its prefix.
 */
const OUTAGE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Socket errors of a server that is down or went away (Node.js `err.code`). */
const OUTAGE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Messages of node-postgres and pg-pool for a lost or unobtainable connection, which carry no code:
 * "Connection terminated unexpectedly", "Connection terminated due to connection timeout",
 * "timeout exceeded when trying to connect", "Client has encountered a connection error and is
 * not queryable", "Client was closed and is not queryable".
 */
const OUTAGE_MESSAGES = new RegExp(
  `^(${[
    'Connection terminated',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error',
    'Client was closed and is not queryable',
  ].join('|')})`,
);

/** `err` and the errors of its `cause` chain (Drizzle wraps the driver's error), at most 5. */
function* causes(err: unknown): Generator<Error & { code?: unknown }> {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) yield e;
}

/**
 * Whether `err` (or an error in its `cause` chain) says the database cannot be reached or dropped
 * the connection. A query error (a constraint, a syntax error) is not an outage.
 * @param err - anything thrown.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = e.code;
    if (
      typeof code === 'string' &&
      (OUTAGE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || OUTAGE_SOCKET_CODES.has(code))
    )
      return true;
    if (OUTAGE_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/**
 * The SQLSTATE or socket code of a database error (the first in its `cause` chain), for logs.
 * @param err - anything thrown.
 * @returns the code, or undefined when none is given.
 */
export function databaseErrorCode(err: unknown): string | undefined {
  for (const e of causes(err)) if (typeof e.code === 'string') return e.code;
  return undefined;
}

/**
 * Logs a failure of background work (a sweep, the sealer, the job queue): at `warn` with the
 * outage's code when the database is unavailable (expected during a restart or failover, and
 * repeated each round until it is back), at `error` otherwise. Never the query or its parameters.
 * @param log - a pino-style logger.
 * @param err - what the work threw.
 * @param message - what failed, e.g. `sealing consent events failed`.
 */
export function logBackgroundFailure(
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void },
  err: unknown,
  message: string,
): void {
  if (isDatabaseUnavailable(err)) log.warn({ code: databaseErrorCode(err) }, `${message}: database unavailable`);
  else log.error({ err: safeErrorMessage(err) }, message);
}
