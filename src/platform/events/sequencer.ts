/**
 * Numbers each organisation's outbox events just after their change commits (docs/decisions/0031-event-outbox.md),
 * modelled on the consent chain's sealer (src/consent/evidence/sealer.ts): a change writes its events unnumbered in
 * its own transaction (`appendOrganisationEvents`), then wakes the sequencer, which numbers every committed
 * unnumbered event of the organisation in one transaction under the feed head's row lock, in the order they were
 * written (`pos`).
 *
 * Why after the commit: a number given inside the change's transaction would be visible only at its commit, and
 * transactions commit in any order, so a reader past number n could later find n-1 appear: the feed would skip it.
 * Numbered after the commit, under one lock, the numbers become visible in order, so a reader that has seen n has
 * seen everything before it. One individual's events keep the order of their changes: those are serialised by the
 * consent record's row lock, and `pos` is drawn under it.
 *
 * What it costs: an event enters the feed some tens of milliseconds after its commit. Readers of the feed `flush`
 * first, so they always see every event committed before them. A process that dies between commit and numbering
 * leaves its events to the sweep of any process.
 */
import type { Db } from '../db/open.js';
import * as numbering from './numbering.js';

/** Events numbered per transaction at most (count). */
const BATCH = 1000;
/** How long a wake waits before numbering (milliseconds), so that the changes of that moment are numbered together. */
const COALESCE_MS = 20;

/** Numbers each organisation's feed, one organisation at a time per process. */
export class EventSequencer {
  private pending = new Set<string>();
  private draining: Promise<void> | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  private stopped = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Receives a failed numbering (its events stay unnumbered for the next round); see `startSweep`. */
  private onError: (err: unknown) => void = () => {};

  /** @param db - the database. */
  constructor(private readonly db: Db) {}

  /**
   * Asks for the organisation's events to be numbered soon (within COALESCE_MS, 20 ms, once no numbering is under
   * way); call it after a change that wrote outbox events commits.
   * @param orgId - the organisation.
   */
  wake(orgId: string): void {
    this.pending.add(orgId);
    if (this.draining || this.scheduled || this.stopped) return; // the drain under way or scheduled takes it
    this.scheduled = setTimeout(() => {
      this.scheduled = undefined;
      this.startDrain();
    }, COALESCE_MS);
  }

  private startDrain(): void {
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      const [again] = this.pending; // woken while draining: numbered after another pause
      if (again !== undefined) this.wake(again);
    });
  }

  /**
   * Numbers every event of the organisation committed before the call, and resolves when it is done.
   * @throws the database's error.
   */
  async flush(orgId: string): Promise<void> {
    while ((await this.numberBatch(orgId)) === BATCH);
  }

  /**
   * Numbers, every `seconds`, the events that no wake covered (a process that died after its commit, or a writer
   * that does not wake).
   * @param seconds - interval (seconds).
   * @param onError - receives a failed numbering or sweep, from now on.
   */
  startSweep(seconds: number, onError: (err: unknown) => void): void {
    this.onError = onError;
    this.sweepTimer = setInterval(() => {
      void numbering
        .organisationsWithUnsequenced(this.db)
        .then((orgs) => {
          for (const org of orgs) this.wake(org);
        })
        .catch(this.onError);
    }, seconds * 1000);
    this.sweepTimer.unref();
  }

  /** Stops the sweep and waits for the numbering under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await this.draining;
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.size > 0) await this.drain(); // number what the last changes wrote before closing
  }

  /** Numbers the organisations pending now; those woken meanwhile wait for the next drain. */
  private async drain(): Promise<void> {
    const orgs = [...this.pending];
    this.pending.clear();
    for (const org of orgs) {
      try {
        await this.flush(org);
      } catch (err) {
        this.onError(err);
      }
    }
  }

  /** Numbers up to BATCH events of the organisation in one transaction; returns how many. */
  private async numberBatch(orgId: string): Promise<number> {
    if (!(await numbering.hasUnsequenced(this.db, orgId))) return 0; // nothing to do: no lock, no write
    return this.db.transaction(async (tx) => {
      const head = await numbering.lockHead(tx, orgId);
      return numbering.numberEvents(tx, orgId, head, BATCH);
    });
  }
}
