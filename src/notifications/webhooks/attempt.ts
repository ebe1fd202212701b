/**
 * One attempt of an event webhook delivery (docs/events.md "Verifying a delivery", "Retries"): the body signed with
 * the webhook's live secrets, POSTed through the SSRF guard (src/platform/net/outbound.ts: only the configured host,
 * every address checked at each send, no redirects followed, 5 s, 1 MiB), and what the answer makes of the delivery.
 */
import { OutboundError, type OutboundPolicy, postOutbound } from '../../platform/net/outbound.js';
import { retryable, retryDelaySeconds } from './backoff.js';
import type { Settled } from './deliveries-store.js';
import { signDelivery } from './signing.js';

/** Headers of an answer kept in the log (count); the rest are dropped. */
const MAX_HEADERS = 50;
/** Characters of one header value kept in the log. */
const MAX_HEADER_CHARS = 500;

/** What one attempt sends. */
export interface AttemptInput {
  deliveryId: string;
  webhookId: string;
  /** The attempt's number, from 1. */
  attempt: number;
  url: string;
  contentType: string;
  /** The live secrets, current first. */
  secrets: string[];
  /** The CloudEvents `id`: the `webhook-id` header. */
  eventId: string;
  body: string;
  /** When the delivery was created: retries stop `retryWindowSeconds` after it. */
  createdAt: Date;
}

/** Retry timing (docs/configuration.md, `ASSENT_EVENT_WEBHOOK_*`). */
export interface RetryPolicy {
  /** seconds */
  firstRetrySeconds: number;
  /** seconds */
  retryWindowSeconds: number;
}

/**
 * Sends one attempt and decides the delivery's next state: `succeeded` on a 2xx; `pending` with the next attempt's
 * time after a 408, 429, 5xx, time-out or network error while the retry window lasts; `failed` otherwise (any other
 * answer, an address the guard refuses, or the window over).
 * @returns the attempt's record; never throws (a failure is an outcome).
 */
export async function attemptDelivery(
  input: AttemptInput,
  policy: OutboundPolicy,
  retry: RetryPolicy,
): Promise<Settled> {
  const at = new Date();
  const requestHeaders: Record<string, string> = {
    'content-type': input.contentType,
    'user-agent': 'Assent-Webhooks/1',
    ...signDelivery(input.secrets, input.eventId, at, input.body),
  };
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  let responseHeaders: Record<string, string> = {};
  let refused = false;
  try {
    const answer = await postOutbound(input.url, input.body, requestHeaders, policy);
    status = answer.status;
    responseHeaders = keptHeaders(answer.headers);
    if (status >= 300 && status < 400) error = 'redirects are not followed';
  } catch (err) {
    // Our own words only: never the remote body or an internal message.
    error = err instanceof OutboundError ? err.message : 'request failed';
    refused = err instanceof OutboundError && err.kind === 'blocked';
  }
  const durationMs = Math.round(performance.now() - started);
  const base = { deliveryId: input.deliveryId, webhookId: input.webhookId, attempt: input.attempt, at, durationMs };
  const record = { ...base, status, error, requestHeaders, responseHeaders };
  if (status !== null && status >= 200 && status < 300) return { ...record, state: 'succeeded' };
  if (refused || !retryable(status ?? undefined)) return { ...record, state: 'failed' };
  const answered = error ?? `answered HTTP ${status}`;
  // A ping is tried once: no window to speak of.
  if (retry.retryWindowSeconds === 0) return { ...record, state: 'failed', error: answered };
  const delay = retryDelaySeconds(input.attempt, retry.firstRetrySeconds, responseHeaders['retry-after']);
  const nextAt = new Date(at.getTime() + delay * 1000);
  if (nextAt.getTime() > input.createdAt.getTime() + retry.retryWindowSeconds * 1000)
    return { ...record, state: 'failed', error: `${answered}; retry window over` };
  return { ...record, state: 'pending', nextAt };
}

/** The answer's headers as the log keeps them: at most MAX_HEADERS, each value cut at MAX_HEADER_CHARS. */
function keptHeaders(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS))
    kept[name] = value.slice(0, MAX_HEADER_CHARS);
  return kept;
}
