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
import type { EventSequencer } from '../../platform/events/sequencer.js';
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
  private pending = new Set<string>();
  private draining: Promise<void> | undefined;
  private scheduled: NodeJS.Timeout | undefined;
  private stopped = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Receives a failed sealing (its events stay unsealed for the next round); see `startSweep`. */
  private onError: (err: unknown) => void = () => {};

  /**
   * @param db - the database.
   * @param events - the outbox's sequencer, woken with the sealer: every consent event also wrote an outbox event
   *   (`queuedEventsSql`; docs/events.md), numbered after the same commit. None in a process that serves no feed.
   */
  constructor(
    private readonly db: Db,
    private readonly events?: EventSequencer,
  ) {}

  /**
   * Asks for the organisation's events to be sealed soon (within COALESCE_MS, 20 ms, once no
   * sealing is under way), and its outbox events numbered; call it after a change commits.
   * @param orgId - the organisation.
   */
  wake(orgId: string): void {
    this.events?.wake(orgId);
    this.schedule(orgId);
  }

  private schedule(orgId: string): void {
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
      const [again] = this.pending; // woken while draining: sealed after another pause
      if (again !== undefined) this.schedule(again);
    });
  }

  /**
   * Seals every event of the organisation committed before the call, and resolves when it is done.
   * @throws the database's error.
   */
  async flush(orgId: string): Promise<void> {
    while ((await this.sealBatch(orgId)) === BATCH);
  }

  /**
   * Seals, every `seconds`, the events that no wake covered (a process that died after its commit).
   * @param seconds - interval (seconds).
   * @param onError - receives a failed sealing or sweep, from now on.
   */
  startSweep(seconds: number, onError: (err: unknown) => void): void {
    this.onError = onError;
    this.sweepTimer = setInterval(() => {
      void store
        .organisationsWithUnsealed(this.db)
        .then((orgs) => {
          for (const org of orgs) this.schedule(org);
        })
        .catch(this.onError);
    }, seconds * 1000);
    this.sweepTimer.unref();
  }

  /** Stops the sweep and waits for the sealing under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.sweepTimer);
    await this.draining;
    clearTimeout(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.size > 0) await this.drain(); // seal what the last changes wrote before closing
  }

  /** Seals the organisations pending now; those woken meanwhile wait for the next drain. */
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

  /** Seals up to BATCH events of the organisation in one transaction; returns how many. */
  private async sealBatch(orgId: string): Promise<number> {
    if (!(await store.hasUnsealed(this.db, orgId))) return 0; // nothing to do: no lock, no write
    return this.db.transaction(async (tx) => {
      const head = await store.lockChainHead(tx, orgId);
      const rows = await store.unsealedEvents(tx, orgId, BATCH);
      const events: SealedEvent[] = seal(head, rows.map(toContent));
      await store.storeSeals(
        tx,
        orgId,
        events,
        rows.map((r) => r.written),
      );
      return rows.length;
    });
  }
}
