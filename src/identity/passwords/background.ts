/**
 * Work done after the answer has been sent: the forgotten-password lookup, token and mail, and the
 * notices of a changed password. A request that triggers such work answers in the same time
 * whatever the work turns out to be (ASVS 5.0 V6.3.8: no account enumeration through timing), and
 * a slow or failing mail relay never holds a request.
 *
 * Failures are logged (one line, without the task's data: a token must never reach a log, ASVS 5.0
 * V16.2.5) and never escape: an unhandled rejection would end the process.
 */
import type { FastifyBaseLogger } from 'fastify';
import { safeErrorMessage } from '../../platform/util/errors.js';

/** Runs of base64url or hex long enough to be a token or a key; removed from logged messages. */
const SECRET_LIKE = /[A-Za-z0-9_-]{32,}/g;

/**
 * Describes an error for a log line: its type, codes and first message line, with anything shaped
 * like a token replaced (an SMTP relay may quote the message it refused).
 * @param err - anything thrown.
 */
export function describeError(err: unknown): { type: string; code?: string; responseCode?: number; message: string } {
  const e = err as { name?: unknown; code?: unknown; responseCode?: unknown };
  return {
    type: typeof e?.name === 'string' ? e.name : 'Error',
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
    ...(typeof e?.responseCode === 'number' ? { responseCode: e.responseCode } : {}),
    message: safeErrorMessage(err).replace(SECRET_LIKE, '[redacted]').slice(0, 300),
  };
}

/** A bounded pool of background tasks. */
export class BackgroundTasks {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly inFlight = new Set<Promise<void>>();

  /**
   * @param concurrency - tasks run at once (count); the others wait.
   * @param maxPending - tasks held at once, running or waiting (count); beyond it a task is dropped
   *   with a warning, so a flood of requests cannot grow memory without bound (denial of service).
   */
  constructor(
    private readonly concurrency = 4,
    private readonly maxPending = 1000,
  ) {}

  /**
   * Schedules `task` to start after the current request's answer has been written (`setImmediate`).
   * @param label - names the task in logs, e.g. `password.forgot`.
   * @param task - the work; whatever it throws is logged and swallowed.
   * @param log - the request's logger: where its failure goes, with the request's ID.
   */
  run(label: string, task: () => Promise<void>, log: FastifyBaseLogger): void {
    if (this.inFlight.size >= this.maxPending) {
      log.warn({ task: label }, 'background queue full: task dropped');
      return;
    }
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.acquire())
      .then(() => task().finally(() => this.release()))
      .catch((err: unknown) => log.error({ task: label, err: describeError(err) }, 'background task failed'))
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  /**
   * Waits for the tasks under way, at most `timeoutMs` (shutdown: their mail should still go out).
   * @param timeoutMs - longest wait (milliseconds).
   */
  async drain(timeoutMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([...this.inFlight]), timeout]);
    clearTimeout(timer);
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
