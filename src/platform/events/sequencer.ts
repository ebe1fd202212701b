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
import { PostCommitWorker } from '../jobs/post-commit.js';
import * as numbering from './numbering.js';

/** Events numbered per transaction at most (count). */
const BATCH = 1000;
/** How long a wake waits before numbering (milliseconds), so that the changes of that moment are numbered together. */
const COALESCE_MS = 20;

/** Numbers each organisation's feed, one organisation at a time per process. */
export class EventSequencer {
  private readonly worker: PostCommitWorker;
  private readonly listeners: Array<(orgId: string) => void> = [];

  /** @param db - the database. */
  constructor(private readonly db: Db) {
    this.worker = new PostCommitWorker(
      {
        batch: (orgId, size) => this.numberBatch(orgId, size),
        keysWithWork: () => numbering.organisationsWithUnsequenced(db),
      },
      BATCH,
      COALESCE_MS,
    );
  }

  /**
   * Asks for the organisation's events to be numbered soon (within COALESCE_MS, 20 ms, once no numbering is under
   * way); call it after a change that wrote outbox events commits.
   * @param orgId - the organisation.
   */
  wake(orgId: string): void {
    this.worker.wake(orgId);
  }

  /**
   * Numbers every event of the organisation committed before the call, and resolves when it is done.
   * @throws the database's error.
   */
  flush(orgId: string): Promise<void> {
    return this.worker.flush(orgId);
  }

  /**
   * Numbers, every `seconds`, the events that no wake covered (a process that died after its commit, or a writer
   * that does not wake).
   * @param seconds - interval (seconds).
   * @param onError - receives a failed numbering or sweep, from now on.
   */
  startSweep(seconds: number, onError: (err: unknown) => void): void {
    this.worker.startSweep(seconds, onError);
  }

  /** Stops the sweep, waits for the numbering under way, and numbers what the last changes wrote before closing. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  /**
   * Calls `listener` with the organisation's ID each time this process has numbered some of its events (after that
   * transaction commits): the webhooks' dispatcher fans them out then (docs/events.md "Webhooks").
   * @param listener - must not throw; it runs on the sequencer's turn, so it should only schedule work.
   */
  onNumbered(listener: (orgId: string) => void): void {
    this.listeners.push(listener);
  }

  /** Numbers up to `size` events of the organisation in one transaction; returns how many. */
  private async numberBatch(orgId: string, size: number): Promise<number> {
    if (!(await numbering.hasUnsequenced(this.db, orgId))) return 0; // nothing to do: no lock, no write
    const numbered = await this.db.transaction(async (tx) => {
      const head = await numbering.lockHead(tx, orgId);
      return numbering.numberEvents(tx, orgId, head, size);
    });
    if (numbered > 0) for (const listener of this.listeners) listener(orgId);
    return numbered;
  }
}
