/**
 * Work done for a key (an organisation) just after a change commits, in batches, by one process at a time per key
 * and per process: the consent chain's sealing (docs/decisions/0005-consent-evidence.md "Tamper evidence") and the
 * event outbox's numbering (docs/decisions/0031-event-outbox.md) both run on it. A change wakes its key after its
 * commit; wakes within a short pause are served together; a reader `flush`es a key to see everything committed before
 * it; a periodic sweep finds the work no wake covered (a process that died after its commit).
 */

/** What the worker runs. */
export interface PostCommitTask {
  /**
   * Does up to `size` items of work for `key` in one transaction.
   * @returns how many it did: `size` means there may be more.
   * @throws the database's error (the work stays for the next round).
   */
  batch(key: string, size: number): Promise<number>;
  /** The keys with work waiting, for the sweep. */
  keysWithWork(): Promise<string[]>;
}

/** Runs a `PostCommitTask` for the keys it is woken for, one key at a time per process. */
export class PostCommitWorker {
  private pending = new Set<string>();
  private draining: Promise<void> | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  private stopped = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Receives a failed batch or sweep (the work stays for the next round); see `startSweep`. */
  private onError: (err: unknown) => void = () => {};

  /**
   * @param task - the work.
   * @param batchSize - items per transaction at most (count).
   * @param coalesceMs - how long a wake waits (milliseconds), so that the changes of that moment are served together.
   */
  constructor(
    private readonly task: PostCommitTask,
    private readonly batchSize: number,
    private readonly coalesceMs: number,
  ) {}

  /**
   * Asks for `key`'s work to be done soon (within `coalesceMs`, once no drain is under way); call it after a commit.
   * @param key - an organisation's ID.
   */
  wake(key: string): void {
    this.pending.add(key);
    if (this.draining || this.scheduled || this.stopped) return; // the drain under way or scheduled takes it
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.startDrain();
    }, this.coalesceMs);
  }

  private startDrain(): void {
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      const [again] = this.pending; // woken while draining: served after another pause
      if (again !== undefined) this.wake(again);
    });
  }

  /**
   * Does all of `key`'s work committed before the call, and resolves when it is done.
   * @throws the database's error.
   */
  async flush(key: string): Promise<void> {
    while ((await this.task.batch(key, this.batchSize)) === this.batchSize);
  }

  /**
   * Looks, every `seconds`, for work that no wake covered.
   * @param seconds - interval (seconds).
   * @param onError - receives a failed batch or sweep, from now on.
   */
  startSweep(seconds: number, onError: (err: unknown) => void): void {
    this.onError = onError;
    this.sweepTimer = setInterval(() => {
      void this.task
        .keysWithWork()
        .then((keys) => {
          for (const key of keys) this.wake(key);
        })
        .catch(this.onError);
    }, seconds * 1000);
    this.sweepTimer.unref();
  }

  /** Stops the sweep, waits for the drain under way, and does what the last wakes asked for. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await this.draining;
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.size > 0) await this.drain();
  }

  /** Serves the keys pending now; those woken meanwhile wait for the next drain. */
  private async drain(): Promise<void> {
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      try {
        await this.flush(key);
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
