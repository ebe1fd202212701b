/**
 * Seals consent events into their organisation's hash chain just after the change commits
 * (docs/decisions/0005-consent-evidence.md "Tamper evidence"): a change writes its events unsealed in
 * its own transaction (`appendEvents`), and queues them, then wakes the sealer, which numbers and
 * links every committed queued event of the organisation in one transaction under the chain head's
 * row lock, writing each event's seal as a row of its own (the event row is never updated).
 *
 * Why after the commit: a chain link needs its predecessor, so whoever links holds the head's lock
 * until commit. Held by each change, it made every consent change of an organisation wait for the
 * previous one's commit round trip (about 200 changes/s). The sealer holds it once per batch.
 *
 * What it costs: an event is covered by the chain from its sealing, some tens of milliseconds after its
 * commit, not from its commit. Reads of the chain (history pages, the record at an instant, the
 * verification) `flush` first, so they always see every event committed before them, sealed. A
 * process that dies between commit and sealing leaves its events to the sweep of any process.
 */
import type { Db } from '../../platform/db/open.js';
import { releaseOrganisationEvents } from '../../platform/events/outbox.js';
import type { EventSequencer } from '../../platform/events/sequencer.js';
import { PostCommitWorker } from '../../platform/jobs/post-commit.js';
import { type SealedEvent, seal } from './chain.js';
import * as store from './seal-store.js';
import { toContent } from './store.js';

/** Events sealed per transaction at most (count). */
const BATCH = 1000;
/**
 * How long a wake waits before sealing (milliseconds), so that the changes of that moment are sealed
 * together. Sealing each change alone cost a transaction of six statements per change, as much as
 * the change itself (bench/consents.mjs, PATCH at one connection).
 */
const COALESCE_MS = 20;

/** Seals each organisation's chain, one organisation at a time per process. */
export class ChainSealer {
  private readonly worker: PostCommitWorker;

  /**
   * @param db - the database.
   * @param events - the outbox's sequencer, woken after each sealing: every consent event also wrote an outbox event
   *   (`queuedEventsSql`; docs/events.md), held until its seal releases it with its `HistorySeq`. None in a process
   *   that serves no feed.
   */
  constructor(
    private readonly db: Db,
    private readonly events?: EventSequencer,
  ) {
    this.worker = new PostCommitWorker(
      { batch: (orgId, size) => this.sealBatch(orgId, size), keysWithWork: () => store.organisationsWithUnsealed(db) },
      BATCH,
      COALESCE_MS,
    );
  }

  /**
   * Asks for the organisation's events to be sealed soon (within COALESCE_MS, 20 ms, once no
   * sealing is under way), and, once sealed, their outbox events numbered; call it after a change commits.
   * @param orgId - the organisation.
   */
  wake(orgId: string): void {
    this.worker.wake(orgId);
  }

  /**
   * Seals every event of the organisation committed before the call, and resolves when it is done.
   * @throws the database's error.
   */
  flush(orgId: string): Promise<void> {
    return this.worker.flush(orgId);
  }

  /**
   * Seals, every `seconds`, the events that no wake covered (a process that died after its commit).
   * @param seconds - interval (seconds).
   * @param onError - receives a failed sealing or sweep, from now on.
   */
  startSweep(seconds: number, onError: (err: unknown) => void): void {
    this.worker.startSweep(seconds, onError);
  }

  /** Stops the sweep, waits for the sealing under way, and seals what the last changes wrote before closing. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Seals up to `size` events of the organisation in one transaction; returns how many. */
  private async sealBatch(orgId: string, size: number): Promise<number> {
    if (!(await store.hasUnsealed(this.db, orgId))) return 0; // nothing to do: no lock, no write
    const sealed = await this.db.transaction(async (tx) => {
      const head = await store.lockChainHead(tx, orgId);
      const rows = await store.unsealedEvents(tx, orgId, size);
      const events: SealedEvent[] = seal(head, rows.map(toContent));
      await store.storeSeals(
        tx,
        orgId,
        events,
        rows.map((r) => r.written),
      );
      // The outbox events of these history events enter the feed with their place in the chain (docs/events.md).
      await releaseOrganisationEvents(
        tx,
        orgId,
        events.map((e) => ({ id: e.id, data: { HistorySeq: e.seq } })),
      );
      return rows.length;
    });
    if (sealed > 0) this.events?.wake(orgId);
    return sealed;
  }
}
