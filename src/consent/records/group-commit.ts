/**
 * Group commit of optimistic consent changes: changes of different records that arrive while
 * earlier ones are being written share one statement, hence one transaction and one WAL flush.
 *
 * Why: a consent change is a small write whose cost on PostgreSQL is mostly its commit (the WAL flush and the
 * per-statement work around it), so under load one commit per change bounds the write rate
 * (docs/decisions/0007-consent-read-and-write-path.md, "Benchmark": attribute PATCH). Nothing waits for a batch to
 * fill: a change that finds a free slot is written at once, alone, and only changes that arrive while all slots are
 * busy wait, for at most one statement's time (`Batcher`). Each change still commits with its own events or not at
 * all (GDPR Art. 7(1); docs/decisions/0005-consent-evidence.md "Evidence"), and the answer is sent after its commit.
 * Two changes of one record never share a statement: the second waits for the first.
 */
import { Batcher } from '../../platform/db/batcher.js';
import type { Db } from '../../platform/db/open.js';
import type { OptimisticWrite } from './store.js';
import * as store from './store.js';

/** Group commit of `store.writeChangeIfUnchanged` (see the module comment). */
export class GroupCommit {
  private readonly batcher: Batcher<OptimisticWrite, boolean>;

  /**
   * @param db - the root handle.
   * @param slots - statements in flight at once (count): overlaps one statement's commit with the next one's work.
   * @param maxBatch - changes per statement at most (count).
   */
  constructor(db: Db, slots = 2, maxBatch = 64) {
    this.batcher = new Batcher<OptimisticWrite, boolean>(
      {
        one: ({ orgId, rows, events, readVersion }) =>
          store.writeChangeIfUnchanged(db, orgId, rows, events, readVersion),
        // A failed batch statement (a deadlock with another process, a row deleted meanwhile) wrote
        // nothing; the batcher then retries each change alone.
        many: (writes) => store.writeChangesIfUnchanged(db, writes),
        key: (write) => write.rows[0]!.recordId,
      },
      slots,
      maxBatch,
    );
  }

  /** Changes taken and not yet committed or refused (count; `Batcher.pending`). */
  get pending(): number {
    return this.batcher.pending;
  }

  /**
   * Writes one record's change if the record's version is still `write.readVersion`, as
   * `store.writeChangeIfUnchanged` does, possibly in one statement with other records' changes.
   * @returns false when the version no longer held (nothing of the change was written).
   * @throws the database error of the change's own statement.
   */
  write(write: OptimisticWrite): Promise<boolean> {
    if (write.rows.length === 0) return Promise.resolve(true);
    return this.batcher.run(write);
  }
}
