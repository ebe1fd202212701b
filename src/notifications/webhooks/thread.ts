/**
 * The dispatcher in a thread of its own (docs/events.md "Delivery guarantees"; docs/decisions/0032-event-webhooks.md,
 * amendment "a delivery thread; undici"): on PostgreSQL, deliveries are signed, sent and recorded by a
 * `worker_threads` thread with its own database connections (thread-entry.ts), so that their work does not queue the
 * requests' on the request thread's event loop. The request thread forwards the sequencer's wakes and redeliveries as
 * messages, and logs the thread's failures. The embedded store (PGlite) lives in the request thread's memory and keeps
 * the dispatcher there.
 */
import { Worker } from 'node:worker_threads';
import type { Config } from '../../platform/config/load.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import type { WebhookDelivery } from './dispatcher.js';

/** Connections of the delivery thread's pool (count): a fan-out, a claim round, a settlement and a ping at once. */
export const THREAD_POOL_SIZE = 4;
/**
 * The delivery thread's nice value on Linux (0 is the process's, 19 the lowest priority): under CPU contention the
 * requests go first (docs/events.md "Delivery guarantees").
 */
export const THREAD_NICE = 10;
/** The `application_name` of the delivery thread's database connections. */
export const THREAD_APPLICATION_NAME = 'assent-webhook-delivery';
/** How long a stop waits for the thread's round under way before ending it (milliseconds). */
const STOP_WAIT_MS = 10_000;
/** Pause before a thread that ended unexpectedly is started again (milliseconds). */
const RESTART_MS = 1000;

/** A message from the request thread to the delivery thread. */
export type ThreadMessage = { type: 'numbered'; orgId: string } | { type: 'kick' } | { type: 'stop' };

/** A message from the delivery thread. */
type FromThread = { type: 'failure'; message: string; code?: string } | { type: 'stopped' };

/**
 * The compiled entry of the thread. The same relative path from src/ and dist/: a test server running the sources
 * starts the compiled thread, which `npm run build` (and the test command) makes first.
 */
const ENTRY = new URL('../../../dist/notifications/webhooks/thread-entry.js', import.meta.url);

/** Runs the webhook dispatcher in a worker thread, started again if it ends unexpectedly. */
export class DispatcherThread implements WebhookDelivery {
  private worker: Worker | undefined;
  private stopping = false;
  private restart: NodeJS.Timeout | undefined;
  private onError: (err: unknown) => void = () => {};

  /** @param config - passed to the thread, which opens its own connections with it. */
  constructor(private readonly config: Config) {}

  /**
   * Starts the thread, and forwards the sequencer's numberings to it.
   * @param onError - receives each failed round of the thread (as an Error with the original's message and code), and
   *   the thread's own end when unexpected.
   */
  start(sequencer: Pick<EventSequencer, 'onNumbered'>, onError: (err: unknown) => void): void {
    this.onError = onError;
    sequencer.onNumbered((orgId) => this.post({ type: 'numbered', orgId }));
    this.spawn();
  }

  /** Asks the thread for a delivery round now. */
  kick(): void {
    this.post({ type: 'kick' });
  }

  /** Stops the thread: it finishes its round and closes its connections, or is ended after STOP_WAIT_MS. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    const stopped = new Promise<void>((resolve) => {
      worker.on('message', (m: FromThread) => m.type === 'stopped' && resolve());
      worker.once('exit', () => resolve());
    });
    worker.postMessage({ type: 'stop' } satisfies ThreadMessage);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([stopped, new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(timer);
    await worker.terminate();
    this.worker = undefined;
  }

  private post(message: ThreadMessage): void {
    this.worker?.postMessage(message);
  }

  private spawn(): void {
    // No exec flags of the request thread (a `--require` of a profiler, say): the thread is the dispatcher alone.
    const worker = new Worker(ENTRY, { workerData: { config: this.config }, execArgv: [] });
    worker.on('message', (m: FromThread) => {
      if (m.type === 'failure') this.onError(Object.assign(new Error(m.message), { code: m.code }));
    });
    worker.on('error', (err) => this.onError(err));
    worker.on('exit', () => {
      if (this.worker !== worker || this.stopping) return;
      this.worker = undefined;
      this.onError(new Error('the event webhook delivery thread ended; starting it again'));
      // What it was doing stays in the database under its leases, for the next thread or another process.
      this.restart = setTimeout(() => this.spawn(), RESTART_MS);
      this.restart.unref();
    });
    this.worker = worker;
  }
}
