/**
 * Slot-bounded batching of database work: an item that finds a free slot runs at once, alone;
 * items that arrive while every slot is busy wait, and the next free slot takes them together in
 * one statement. Nothing waits for a batch to fill, so a lone request costs what it cost without
 * the batcher, and under load several requests share one round trip.
 *
 * Why: on this kind of machine the fixed cost of a statement (the pool, the protocol messages, a
 * loopback send and the wake-up of the peer on each side) is most of what a small keyed statement
 * costs the server's main thread and PostgreSQL; sharing it is what lets a 2-core machine serve
 * the rates of issues #2 and #3 "Benchmark". Used for the consent changes (`GroupCommit`) and the
 * refresh-token rotations (`IdentityService.refresh`), one commit per batch, and for the consent
 * record reads (`RecordViews`).
 */

/** How a `Batcher` runs its items. */
export interface BatchWork<T, R> {
  /** Runs one item alone (the path of an unloaded server). */
  one(item: T): Promise<R>;
  /**
   * Runs several items in one statement; answers one result per item, in order. When it throws,
   * nothing of the batch took effect, and each item is run alone with `one`, so that only an item
   * that fails on its own fails.
   */
  many(items: T[]): Promise<R[]>;
  /**
   * Items with the same key never share a batch nor run at once: an item waits while another of
   * its key runs (the group commit's changes of one record). Undefined: no such constraint.
   */
  key?(item: T): string;
}

interface Pending<T, R> {
  item: T;
  key: string | undefined;
  resolve(result: R): void;
  reject(err: unknown): void;
}

/** Slot-bounded batching (see the module comment). */
export class Batcher<T, R> {
  private readonly waiting: Pending<T, R>[] = [];
  /** Keys of the items running now. */
  private readonly busy = new Set<string>();
  private inFlight = 0;
  /** Items in the statements running now (count). */
  private running = 0;

  /**
   * @param work - how to run one item and a batch.
   * @param slots - statements in flight at once (count, at least 1).
   * @param maxBatch - items per statement at most (count, at least 1).
   */
  constructor(
    private readonly work: BatchWork<T, R>,
    private readonly slots: number,
    private readonly maxBatch: number,
  ) {}

  /**
   * Items taken and not yet answered (count): those waiting for a slot and those in a running
   * statement. What the batching tests wait for before they let the first statement finish, so
   * that the grouping they check does not depend on the machine's speed (docs/development.md).
   */
  get pending(): number {
    return this.waiting.length + this.running;
  }

  /**
   * Runs `item`, alone or in a batch.
   * @returns its result.
   * @throws what its own statement threw (a batch's failure is retried item by item first).
   */
  run(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, key: this.work.key?.(item), resolve, reject });
      this.pump();
    });
  }

  /** Starts statements while slots are free, each with the waiting items whose key is not busy. */
  private pump(): void {
    while (this.inFlight < this.slots && this.waiting.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.inFlight++;
      this.running += batch.length;
      void this.execute(batch).finally(() => {
        this.inFlight--;
        this.running -= batch.length;
        for (const p of batch) if (p.key !== undefined) this.busy.delete(p.key);
        this.pump();
      });
    }
  }

  /** Takes up to `maxBatch` waiting items in arrival order, at most one per key, none of a busy key. */
  private take(): Pending<T, R>[] {
    const batch: Pending<T, R>[] = [];
    for (let i = 0; i < this.waiting.length && batch.length < this.maxBatch; ) {
      const p = this.waiting[i]!;
      if (p.key !== undefined) {
        if (this.busy.has(p.key)) {
          i++;
          continue;
        }
        this.busy.add(p.key);
      }
      batch.push(p);
      this.waiting.splice(i, 1);
    }
    return batch;
  }

  private async execute(batch: Pending<T, R>[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const results = await this.work.many(batch.map((p) => p.item));
        for (const [i, p] of batch.entries()) p.resolve(results[i]!);
        return;
      } catch {
        // Fall through: each item on its own.
      }
    }
    await Promise.all(
      batch.map(async (p) => {
        try {
          p.resolve(await this.work.one(p.item));
        } catch (err) {
          p.reject(err);
        }
      }),
    );
  }
}
