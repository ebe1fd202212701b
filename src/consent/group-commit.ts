/**
 * Group commit of optimistic consent changes: changes of different records that arrive while
 * earlier ones are being written share one statement, hence one transaction and one WAL flush.
 *
 * Why: a consent change is a small write whose cost on PostgreSQL is mostly its commit (the WAL
 * flush and the per-statement work around it), so under load one commit per change bounds the
 * write rate (issue #3, "Benchmark": attribute PATCH). Nothing waits for a batch to fill: a change
 * that finds a free slot is written at once, alone, and only changes that arrive while all slots
 * are busy wait, for at most one statement's time. Each change still commits with its own events
 * or not at all (GDPR Art. 7(1); issue #3 "Evidence"), and the answer is sent after its commit.
 */
import type { Db } from '../db/open.js';
import * as store from './store.js';
import type { OptimisticWrite } from './store.js';

/** A change waiting for its statement. */
interface Pending {
  write: OptimisticWrite;
  recordId: string;
  resolve(written: boolean): void;
  reject(err: unknown): void;
}

/** Group commit of `store.writeChangeIfUnchanged` (see the module comment). */
export class GroupCommit {
  private readonly waiting: Pending[] = [];
  /** Records with a change in a statement now: a record's next change waits for it. */
  private readonly busy = new Set<string>();
  private inFlight = 0;

  /**
   * @param db - the root handle.
   * @param slots - statements in flight at once (count): overlaps one statement's commit with the next one's work.
   * @param maxBatch - changes per statement at most (count).
   */
  constructor(
    private readonly db: Db,
    private readonly slots = 2,
    private readonly maxBatch = 64,
  ) {}

  /**
   * Writes one record's change if the record's version is still `write.readVersion`, as
   * `store.writeChangeIfUnchanged` does, possibly in one statement with other records' changes.
   * @returns false when the version no longer held (nothing of the change was written).
   * @throws the database error of the change's own statement.
   */
  write(write: OptimisticWrite): Promise<boolean> {
    const recordId = write.rows[0]?.recordId;
    if (recordId === undefined) return Promise.resolve(true);
    return new Promise((resolve, reject) => {
      this.waiting.push({ write, recordId, resolve, reject });
      this.pump();
    });
  }

  /** Starts statements while slots are free, each with the waiting changes of records not busy. */
  private pump(): void {
    while (this.inFlight < this.slots && this.waiting.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        for (const p of batch) this.busy.delete(p.recordId);
        this.pump();
      });
    }
  }

  /** Takes up to `maxBatch` waiting changes, in arrival order, at most one per record, none of a busy record. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    for (let i = 0; i < this.waiting.length && batch.length < this.maxBatch; ) {
      const p = this.waiting[i]!;
      if (this.busy.has(p.recordId)) {
        i++;
        continue;
      }
      this.busy.add(p.recordId);
      batch.push(p);
      this.waiting.splice(i, 1);
    }
    return batch;
  }

  /**
   * Writes a batch. A lone change takes the prepared single-change statement. When a batch's
   * statement fails (a deadlock with another process, a row deleted meanwhile), nothing of it was
   * written, and each change is retried alone, so that only a change that fails on its own fails.
   */
  private async run(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const written = await store.writeChangesIfUnchanged(this.db, batch.map((p) => p.write));
        batch.forEach((p, i) => p.resolve(written[i]!));
        return;
      } catch {
        // Fall through: each change on its own.
      }
    }
    await Promise.all(
      batch.map(async (p) => {
        try {
          const { orgId, rows, events, readVersion } = p.write;
          p.resolve(await store.writeChangeIfUnchanged(this.db, orgId, rows, events, readVersion));
        } catch (err) {
          p.reject(err);
        }
      }),
    );
  }
}
