/**
 * Reading the consent history (docs/decisions/0005-consent-evidence.md "Evidence"): an individual's events, newest
 * first; the record as it was at an instant; and the verification of an organisation's chain.
 */

import { InvalidRequest, NotFound } from '../../platform/core/errors.js';
import type { Db } from '../../platform/db/open.js';
import { keysetPage } from '../../platform/http/pagination.js';
import { isId } from '../../platform/util/ids.js';
import { checkEvent, GENESIS_LINK, type SealedEvent, type VerifyReport } from '../evidence/chain.js';
import type { ChainSealer } from '../evidence/sealer.js';
import * as evidence from '../evidence/store.js';
import type { ConsentValue } from '../model/values.js';
import { presentPurpose, toPurposeStates } from '../records/present.js';
import type { ConsentEventBody } from '../records/schemas.js';
import type { RecordRow } from '../records/store.js';

/** Events read per round trip while verifying (count). */
const VERIFY_BATCH = 2000;

/** An event as the history endpoints show it. */
export function presentEvent(e: SealedEvent): ConsentEventBody {
  return {
    ID: e.id,
    Seq: e.seq,
    ConsentID: e.recordId,
    UserID: e.userId,
    PurposeID: e.purposeId,
    AttributeID: e.attributeId,
    OldValue: e.oldValue,
    NewValue: e.newValue,
    OldDays: e.oldDays,
    NewDays: e.newDays,
    TimeStamp: e.occurredAt,
    Actor: { Type: e.actor.type, UserID: e.actor.userId ?? '', APIKeyID: e.actor.apiKeyId ?? '' },
    Channel: { Endpoint: e.channel.endpoint, UserAgent: e.channel.userAgent },
    RequestID: e.requestId,
    Hash: e.contentHash.toString('hex'),
    PrevLink: e.prevLink.toString('hex'),
    Link: e.link.toString('hex'),
  };
}

/** The consent history of organisations. */
export class HistoryService {
  /**
   * @param db - the database.
   * @param sealer - flushed before each read, so that every event committed before it is sealed and shown.
   */
  constructor(
    private readonly db: Db,
    private readonly sealer: ChainSealer,
  ) {}

  /**
   * One page of an individual's events, newest first.
   * @param filter.beforeSeq - exclusive cursor (the `startid` of the page).
   * @returns the events; when more exist, the cursor of the next page; and `intact`, how many of
   *   the page's events still match their stored hash and link (recomputed from their content and
   *   the predecessor's link they name; the whole chain's order is `verify`'s).
   */
  async page(
    record: RecordRow,
    filter: { purposeId?: string; from?: Date; to?: Date; startId?: string },
    limit: number,
  ) {
    if (filter.purposeId !== undefined && !isId(filter.purposeId)) return { events: [], next: undefined, intact: 0 };
    const beforeSeq = filter.startId === undefined ? undefined : Number(filter.startId);
    if (beforeSeq !== undefined && !Number.isSafeInteger(beforeSeq))
      throw new InvalidRequest('startid must be the Seq of an event');
    await this.sealer.flush(record.orgId);
    const rows = await evidence.historyPage(
      this.db,
      {
        orgId: record.orgId,
        recordId: record.id,
        purposeId: filter.purposeId,
        from: filter.from,
        to: filter.to,
        beforeSeq,
      },
      limit + 1,
    );
    const page = keysetPage(rows, limit, (e) => String(e.seq));
    const intact = page.items.filter((e) => checkEvent(e, e.seq, e.prevLink) === null).length;
    return { events: page.items.map(presentEvent), next: page.next, intact };
  }

  /**
   * The record as it was at `at`: the purposes and attributes configured then, each with its last
   * event at or before `at`, else its default.
   */
  async recordAt(record: RecordRow, at: Date) {
    if (at.getTime() < record.createdAt.getTime()) throw new NotFound('The consent record did not exist at that time');
    await this.sealer.flush(record.orgId);
    const [config, events] = await Promise.all([
      evidence.configurationAt(this.db, record.orgId, at),
      evidence.stateAt(this.db, record.id, at),
    ]);
    const last = new Map(events.map((e) => [`${e.purposeId}/${e.attributeId}`, e]));
    const rows = config.map((c) => {
      const e = last.get(`${c.purposeId}/${c.attributeId}`);
      return {
        ...c,
        value: (e?.value ?? null) as ConsentValue | null,
        days: e?.days ?? null,
        decidedAt: e?.decidedAt ?? null,
      };
    });
    const states = toPurposeStates(rows, record.createdAt);
    return {
      ID: record.id,
      OrgID: record.orgId,
      UserID: record.userId,
      At: at.toISOString(),
      ConsentsAndPurposes: states.map((s) => presentPurpose(s, at)),
    };
  }

  /**
   * Seals what was committed, reads the chain head, then recomputes the chain from its first event
   * up to the head, in batches, and checks that the head names the last event (so a deleted tail is
   * found too). Events sealed after the head was read are left to the next verification.
   */
  async verify(orgId: string): Promise<VerifyReport> {
    await this.sealer.flush(orgId);
    const head = (await evidence.chainHead(this.db, orgId)) ?? { seq: 0, link: GENESIS_LINK };
    let prev: Buffer = GENESIS_LINK;
    let seq = 0;
    for (;;) {
      const batch = (await evidence.eventsAfter(this.db, orgId, seq, VERIFY_BATCH)).filter((e) => e.seq <= head.seq);
      for (const event of batch) {
        const reason = checkEvent(event, seq + 1, prev);
        if (reason) return { Valid: false, Events: seq, FirstBrokenSeq: seq + 1, Reason: reason };
        seq = event.seq;
        prev = event.link;
      }
      if (batch.length < VERIFY_BATCH) break;
    }
    if (head.seq !== seq || !head.link.equals(prev)) {
      return {
        Valid: false,
        Events: seq,
        FirstBrokenSeq: seq + 1,
        Reason: `the chain head names event ${head?.seq ?? 0}, but the last event found is ${seq}`,
      };
    }
    return { Valid: true, Events: seq, FirstBrokenSeq: null, Reason: '' };
  }
}
