/**
 * The send pipeline of the special consent request (docs/api.md "Permissions and consents"), the same for first attempts and
 * retries: deliveries go out SEND_CONCURRENCY at a time; each chunk of SETTLE_EVERY webhook
 * attempts is recorded in the delivery log before any of its requests is sent (the next chunk is
 * recorded while this one sends), and outcomes are settled behind the sends, SETTLE_EVERY at a time.
 */
import type { Db } from '../platform/db/open.js';
import { mapLimit } from '../platform/util/pool.js';
import * as attempts from './attempts-store.js';
import type { JobContext, NotificationSetup, Transports } from './setup.js';
import type { PendingDelivery } from './store.js';
import type { DeliveryOutcome, Transport, TransportName } from './transports/transports.js';

/** Deliveries in flight at once per worker (count). */
export const SEND_CONCURRENCY = 64;
/**
 * Deliveries recorded and settled together (count). After a crash, what was in flight or not yet
 * settled is sent again: at most SEND_CONCURRENCY + SETTLE_EVERY per worker.
 */
export const SETTLE_EVERY = 64;

/** One delivery to attempt. */
export interface Send {
  delivery: PendingDelivery;
  /** 1 for the first try. */
  attempt: number;
}

/** An attempted delivery and how it went. */
export interface Sent extends Send {
  outcome: DeliveryOutcome;
}

/**
 * Sends `sends` through the job's transports and hands the outcomes to `settle`, in chunks of at
 * most SETTLE_EVERY, one chunk at a time. A webhook attempt is in the delivery log (`sending`)
 * before its request leaves, and is completed before its chunk is settled.
 * @throws the first database error of recording or settling (the sends still finish first); the
 *   caller's job then runs again, and what was not settled is still open.
 */
export async function sendAll(
  db: Db,
  setup: NotificationSetup,
  ctx: JobContext,
  sends: Send[],
  settle: (chunk: Sent[]) => Promise<void>,
): Promise<void> {
  const chunks: Send[][] = [];
  for (let i = 0; i < sends.length; i += SETTLE_EVERY) chunks.push(sends.slice(i, i + SETTLE_EVERY));
  const recordings = new Map<number, Promise<Map<Send, string>>>();
  const record = (k: number): Promise<Map<Send, string>> => {
    let recording = recordings.get(k);
    if (!recording) {
      recording = recordChunk(db, setup, ctx, chunks[k] ?? []);
      recording.catch(() => {}); // awaited by the chunk's sends; a prefetch nobody awaits must not crash the process
      recordings.set(k, recording);
    }
    return recording;
  };
  const indexed = chunks.flatMap((chunk, k) => chunk.map((send) => ({ send, k })));

  let buffered: Array<Sent & { attemptId?: string }> = [];
  let settling = Promise.resolve();
  let settleError: unknown;
  const flush = () => {
    const chunk = buffered;
    buffered = [];
    // Caught here and rethrown below: a rejection left pending while sends go on would crash the process.
    settling = settling
      .then(() => settleChunk(db, chunk, settle))
      .catch((err) => {
        settleError ??= err;
      });
  };
  await mapLimit(indexed, SEND_CONCURRENCY, async ({ send, k }) => {
    // Recorded before sent: a crash from here on leaves the attempt in the log as in flight.
    const ids = await record(k);
    if (k + 1 < chunks.length) void record(k + 1);
    const outcome = await transportOf(ctx.transports, send.delivery.transport).deliver(ctx.notification, send.delivery);
    // Read `buffered` only after the await: a flush meanwhile replaced it (`buffered.push(await …)`
    // would push into the chunk already handed to the settler, and the outcome would be lost).
    buffered.push({ ...send, outcome, attemptId: ids.get(send) });
    if (buffered.length >= SETTLE_EVERY) flush();
  });
  flush();
  await settling;
  if (settleError !== undefined) throw settleError;
}

/** Records a chunk's webhook attempts as `sending`; answers each one's log row ID. */
async function recordChunk(
  db: Db,
  setup: NotificationSetup,
  ctx: JobContext,
  chunk: Send[],
): Promise<Map<Send, string>> {
  const ids = new Map<Send, string>();
  const rows: attempts.AttemptStart[] = [];
  for (const send of chunk) {
    if (send.delivery.transport !== 'webhook') continue;
    const id = setup.attemptId();
    ids.set(send, id);
    rows.push({
      id,
      orgId: ctx.orgId,
      jobId: ctx.notification.jobId,
      userId: send.delivery.userId,
      url: ctx.webhookUrl,
      attempt: send.attempt,
    });
  }
  await attempts.beginAttempts(db, rows);
  return ids;
}

async function settleChunk(
  db: Db,
  chunk: Array<Sent & { attemptId?: string }>,
  settle: (chunk: Sent[]) => Promise<void>,
): Promise<void> {
  if (chunk.length === 0) return;
  const ended = chunk.flatMap(({ attemptId, outcome }) =>
    attemptId === undefined
      ? []
      : [
          {
            id: attemptId,
            status: outcome.status ?? null,
            error: outcome.ok ? null : (outcome.error ?? 'failed'),
            durationMs: outcome.durationMs,
          },
        ],
  );
  await attempts.endAttempts(db, ended);
  await settle(chunk.map(({ attemptId: _, ...sent }) => sent));
}

function transportOf(transports: Transports, name: TransportName): Transport {
  const transport = transports[name];
  // The organisation removed the transport after the claim: nothing can deliver this any more.
  return (
    transport ?? {
      name,
      deliver: async () => ({ ok: false, error: `the ${name} transport was removed`, durationMs: 0 }),
    }
  );
}
