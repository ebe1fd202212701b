/**
 * What the consent domain contributes to the data export (GDPR Art. 15 "right of access" and Art. 20 "right to data
 * portability"; ISO/IEC TS 27560 "consent record"; docs/identity.md "Data export (GDPR Art. 15 and 20)"): the
 * individual's consent records as `GET {base}/organizations/{organizationID}/users/{userID}/consents` presents them,
 * and every event of their consent history across organisations, oldest first, read in chunks as it is sent.
 */
import { type Static, Type } from 'typebox';
import type { Db } from '../../platform/db/open.js';
import type { SealedEvent } from '../evidence/chain.js';
import type { ChainSealer } from '../evidence/sealer.js';
import { chainHead } from '../evidence/store.js';
import { presentEvent } from '../history/history.js';
import type { RecordViews } from '../records/reads.js';
import { ConsentEvent, ConsentRecordBody } from '../records/schemas.js';
import type { ConsentService } from '../records/service.js';
import * as store from './export-store.js';

/**
 * Events read per round trip of one record (count). At most this many events of each of the individual's records
 * are held at once (about 1 KiB each as JSON, under 1 MiB a record), whatever the length of the history.
 */
export const EXPORT_CHUNK = 500;

/** A consent record in the export: the body of `GET …/consents`, whether the individual is still subscribed, and since when the record exists. */
export const ExportedRecord = Type.Object({
  ...ConsentRecordBody.properties,
  Subscribed: Type.Boolean({ description: 'false once the individual unsubscribed: the record and its history stay' }),
  Created: Type.String({ description: 'RFC 3339: the first subscription to the organisation' }),
});
/** A consent record of the export. */
export type ExportedRecordBody = Static<typeof ExportedRecord>;

/** A consent history event in the export: the event of the history endpoints with its organisation (its chain). */
export const ExportedEvent = Type.Object({
  OrgID: Type.String({ description: 'the organisation whose hash chain holds the event' }),
  ...ConsentEvent.properties,
});
/** A consent history event of the export. */
export type ExportedEventBody = Static<typeof ExportedEvent>;

/** Reads an individual's consent records and history for the data export. */
export class ConsentExport {
  /**
   * @param db - the database.
   * @param views - the record reads, with purposes and data attributes from the cached catalogues.
   * @param sealer - flushed before the history is read, so that every event committed before the export is in it.
   * @param consents - presents a record as the consents API does.
   */
  constructor(
    private readonly db: Db,
    private readonly views: RecordViews,
    private readonly sealer: ChainSealer,
    private readonly consents: ConsentService,
  ) {}

  /**
   * The individual's consent records, oldest first: one per organisation they ever subscribed to, with
   * `DataRetention` per purpose, as `GET …/users/{userID}/consents` answers it (purposes without
   * attributes left out, docs/api.md).
   */
  async records(userId: string): Promise<ExportedRecordBody[]> {
    const out: ExportedRecordBody[] = [];
    for (const { orgId } of await store.recordsOfUser(this.db, userId)) {
      const view = await this.views.read({ orgId, userId, principalId: userId, purposeId: null });
      if (!view?.record) continue;
      const { record, states, retention } = view;
      out.push({
        ...this.consents.recordBody({ record, states, retention }, true),
        Subscribed: record.subscribed,
        Created: record.createdAt.toISOString(),
      });
    }
    return out;
  }

  /**
   * The consent history of `records`: seals what was committed, reads each organisation's chain head,
   * and returns the events up to those heads (a consistent prefix of each chain: events sealed
   * later are left out), oldest first across organisations, by `TimeStamp`, then organisation, then
   * `Seq`. The events are read `EXPORT_CHUNK` at a time per record as the caller iterates.
   * @param records - the individual's records (`records`).
   * @throws the database's error, also while iterating.
   */
  async history(records: ReadonlyArray<{ ID: string; OrgID: string }>): Promise<AsyncIterable<ExportedEventBody>> {
    const cursors: RecordEvents[] = [];
    for (const r of records) {
      await this.sealer.flush(r.OrgID);
      const head = await chainHead(this.db, r.OrgID);
      if (head) cursors.push(new RecordEvents(this.db, { orgId: r.OrgID, recordId: r.ID, upToSeq: head.seq }));
    }
    return oldestFirst(cursors);
  }
}

/** One record's events, oldest first, fetched a chunk at a time. */
class RecordEvents {
  private buffer: SealedEvent[] = [];
  /** Index of the next event in `buffer`. */
  private next = 0;
  private done = false;

  constructor(
    private readonly db: Db,
    private readonly chunk: store.RecordEventsChunk,
  ) {}

  /** The next event without taking it; undefined at the end. */
  async peek(): Promise<SealedEvent | undefined> {
    if (this.next === this.buffer.length && !this.done) {
      this.buffer = await store.recordEvents(this.db, this.chunk, EXPORT_CHUNK);
      this.next = 0;
      this.done = this.buffer.length < EXPORT_CHUNK;
      const last = this.buffer.at(-1);
      if (last) this.chunk.after = { occurredAt: last.occurredAt, seq: last.seq };
    }
    return this.buffer[this.next];
  }

  /** Drops the event `peek` answered. */
  take(): void {
    this.next++;
  }
}

/** Whether event `a` comes before `b` in the export: by time (RFC 3339 UTC strings sort as instants), organisation, seq. */
function before(a: SealedEvent, b: SealedEvent): boolean {
  if (a.occurredAt !== b.occurredAt) return a.occurredAt < b.occurredAt;
  if (a.orgId !== b.orgId) return a.orgId < b.orgId;
  return a.seq < b.seq;
}

/** Merges the records' event streams, each oldest first, into one (an individual has one record per organisation: few streams). */
async function* oldestFirst(cursors: RecordEvents[]): AsyncGenerator<ExportedEventBody> {
  for (;;) {
    let next: { cursor: RecordEvents; event: SealedEvent } | undefined;
    for (const cursor of cursors) {
      const event = await cursor.peek();
      if (event && (!next || before(event, next.event))) next = { cursor, event };
    }
    if (!next) return;
    next.cursor.take();
    yield { OrgID: next.event.orgId, ...presentEvent(next.event) };
  }
}
