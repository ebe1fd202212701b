/**
 * When a failed delivery of an event webhook is tried again (docs/events.md "Retries"): exponential backoff with
 * jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"), for the retry window, and which answers are worth
 * another try (RFC 9110 §15: 408 and 429 say "later", 5xx says "the server failed"; any other 4xx says the request
 * itself is refused and will be refused again).
 */

/** Longest delay between two attempts (seconds). */
export const MAX_DELAY_SECONDS = 6 * 3600;
/** Jitter: the delay is scaled by a factor in [1 - JITTER, 1 + JITTER]. */
const JITTER = 0.2;

/**
 * Whether an answer is worth another attempt.
 * @param status - the HTTP status, or undefined when no answer came (network error, time-out): worth it.
 */
export function retryable(status: number | undefined): boolean {
  if (status === undefined) return true;
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The delay before the attempt after `attempt` (seconds): `first × 2^(attempt-1)`, at most 6 hours, ±20 % jitter;
 * a `Retry-After` of a 429 or 503 (RFC 9110 §10.2.3, seconds or an HTTP date) is honoured when it asks for longer.
 * @param attempt - the attempt that failed, from 1.
 * @param firstSeconds - the first retry's delay (seconds).
 * @param retryAfter - the answer's `Retry-After` header, if any.
 * @param random - a number in [0, 1) (Math.random by default).
 * @param now - the current time (milliseconds since the epoch), to read an HTTP-date `Retry-After`.
 */
export function retryDelaySeconds(
  attempt: number,
  firstSeconds: number,
  retryAfter: string | undefined,
  random: () => number = Math.random,
  now = Date.now(),
): number {
  const base = Math.min(MAX_DELAY_SECONDS, firstSeconds * 2 ** Math.min(attempt - 1, 30));
  const jittered = base * (1 - JITTER + 2 * JITTER * random());
  return Math.max(jittered, retryAfterSeconds(retryAfter, now) ?? 0);
}

/** A `Retry-After` value in seconds (at most MAX_DELAY_SECONDS), or undefined when absent or unreadable. */
function retryAfterSeconds(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : (Date.parse(value) - now) / 1000;
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.min(seconds, MAX_DELAY_SECONDS);
}
