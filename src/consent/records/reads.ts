/**
 * Consent record reads through a `Batcher`: a read that finds a free slot runs the record's own named statement at
 * once; reads that arrive while every slot is busy share one statement (`viewRows`), so that under load many reads
 * cost one round trip (docs/decisions/0007-consent-read-and-write-path.md "Benchmark": GET consents and the read step
 * of every change). Each read still sees one snapshot of its own row and the caller's roles as of that statement,
 * exactly as a lone read would.
 */
import { Batcher } from '../../platform/db/batcher.js';
import type { Db } from '../../platform/db/open.js';
import type { CatalogueCache } from '../catalogue/cache.js';
import { type OwnViewRow, ownViewRows } from './own-store.js';
import { type RecordView, recordViewOf, type ViewIds, type ViewRow, viewRow, viewRows } from './read-store.js';

/** Reads of consent records, batched under load (see the module comment). */
export class RecordViews {
  private readonly batcher: Batcher<ViewIds, ViewRow | null>;
  private readonly own: Batcher<string, OwnViewRow[]>;

  /**
   * @param db - the root handle.
   * @param catalogues - the cached catalogues the records' purposes come from.
   * @param slots - read statements in flight at once (count); further reads wait and batch.
   * @param maxBatch - reads per statement at most (count).
   */
  constructor(
    db: Db,
    private readonly catalogues: CatalogueCache,
    slots: number,
    maxBatch = 32,
  ) {
    this.batcher = new Batcher<ViewIds, ViewRow | null>(
      { one: (ids) => viewRow(db, ids), many: (keys) => viewRows(db, keys) },
      slots,
      maxBatch,
    );
    this.own = new Batcher<string, OwnViewRow[]>(
      { one: async (userId) => (await ownViewRows(db, [userId]))[0]!, many: (userIds) => ownViewRows(db, userIds) },
      slots,
      maxBatch,
    );
  }

  /** Record reads taken and not yet answered (count; `Batcher.pending`), the individual's own reads included. */
  get pending(): number {
    return this.batcher.pending + this.own.pending;
  }

  /**
   * Reads one consent record as its read operations need it (see `recordViewOf`).
   * @param ids - UUIDs, already checked: the path's organisation and individual, the caller, and
   *   the purpose to restrict to (null for all).
   * @returns null when the organisation does not exist.
   * @throws the database error of the read's statement.
   */
  async read(ids: ViewIds): Promise<RecordView | null> {
    return recordViewOf(this.catalogues, await this.batcher.run(ids), ids);
  }

  /**
   * Reads every consent record of the organisations an individual is subscribed to, as the
   * individual (the dashboard's "My consents", `own-store.ts`), in organisation ID order.
   * @param userId - a UUID, already checked.
   * @returns per subscription, the organisation's name and the view (null when its catalogue is gone).
   * @throws the database error of the read's statement.
   */
  async readOwn(userId: string): Promise<Array<{ orgName: string; view: RecordView | null }>> {
    const rows = await this.own.run(userId);
    return Promise.all(
      rows.map(async (row) => ({
        orgName: row.org_name,
        view: await recordViewOf(this.catalogues, row, {
          orgId: row.org_id,
          userId,
          principalId: userId,
          purposeId: null,
        }),
      })),
    );
  }
}
