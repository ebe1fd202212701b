/**
 * The organisation's change feed (docs/events.md "The feed"): its outbox events in `seq` order, as CloudEvents 1.0
 * (built by the `cloudevents` package). Reading first flushes the sealer and the sequencer, so that a page holds
 * every event committed before the request; `seq` being given after the commit under one lock, a reader that has
 * seen an event has seen every event before it, and a cursor never skips one.
 */
import { CloudEvent } from 'cloudevents';
import { InvalidRequest } from '../../platform/core/errors.js';
import type { Db } from '../../platform/db/open.js';
import { type CloudEventBody, EVENT_TYPES, FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT } from './schemas.js';
import * as store from './store.js';

/** Digits of a `sequence` (zero-padded, so that its strings order as its numbers: CloudEvents "Sequence"). */
const SEQ_DIGITS = 20;

/** A page of the feed, before its links. */
export interface FeedPage {
  events: CloudEventBody[];
  /** The `after` of the next page when the read was full (another page may exist), else undefined. */
  next?: string;
}

/** A validated feed query. */
export interface FeedRequest {
  /** Exclusive seq (0: from the first). */
  after: number;
  /** Page size (count). */
  limit: number;
  /** Only these types, or all. */
  types?: string[];
}

/**
 * Parses the feed's query.
 * @throws {InvalidRequest} when `after` is not a cursor (up to 20 decimal digits), `limit` is not a whole number in
 *   1..1000, or `types` names a type the outbox does not emit.
 */
export function feedRequest(query: { after?: string; limit?: string; types?: string }): FeedRequest {
  let after = 0;
  if (query.after !== undefined && query.after !== '') {
    if (!/^\d{1,20}$/.test(query.after) || !Number.isSafeInteger(Number(query.after)))
      throw new InvalidRequest('after must be the sequence of an event of this feed');
    after = Number(query.after);
  }
  let limit = FEED_DEFAULT_LIMIT;
  if (query.limit !== undefined && query.limit !== '') {
    limit = Number(query.limit);
    if (!/^\d+$/.test(query.limit) || limit < 1 || limit > FEED_MAX_LIMIT)
      throw new InvalidRequest(`limit must be a whole number from 1 to ${FEED_MAX_LIMIT}`);
  }
  let types: string[] | undefined;
  if (query.types !== undefined && query.types !== '') {
    types = [...new Set(query.types.split(',').map((t) => t.trim()))];
    const unknown = types.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (unknown !== undefined) throw new InvalidRequest(`unknown event type ${JSON.stringify(unknown)}`);
  }
  return { after, limit, ...(types ? { types } : {}) };
}

/**
 * The CloudEvents `sequence` of a seq: 20 digits, zero-padded.
 * @param seq - the place in the feed, from 1.
 */
export function sequenceOf(seq: number): string {
  return String(seq).padStart(SEQ_DIGITS, '0');
}

/** Reads organisations' change feeds. */
export class EventFeed {
  /**
   * @param db - the database.
   * @param flush - run before each read: seals the organisation's committed consent events (which releases their
   *   outbox events) and numbers every committed outbox event, so that a page holds every event committed before it.
   * @param publicUrl - `ASSENT_PUBLIC_URL`: events' `source` is `{publicUrl}/v1/organizations/{organizationID}`.
   */
  constructor(
    private readonly db: Db,
    private readonly flush: (orgId: string) => Promise<void>,
    private readonly publicUrl: string,
  ) {}

  /**
   * One page of the organisation's feed: every event committed before the call with a seq after `after`, in seq
   * order, at most `limit`.
   * @param orgId - an existing organisation (checked by the access policy).
   * @throws the database's error.
   */
  async page(orgId: string, req: FeedRequest): Promise<FeedPage> {
    await this.flush(orgId);
    const rows = await store.eventsAfter(this.db, orgId, req.after, req.limit, req.types);
    const source = eventSource(this.publicUrl, orgId);
    const events = rows.map((r) => cloudEventOf(r, source));
    const last = rows.at(-1);
    return rows.length === req.limit && last ? { events, next: sequenceOf(last.seq) } : { events };
  }
}

/**
 * The CloudEvents `source` of an organisation's events: `{publicUrl}/v1/organizations/{organizationID}`.
 * @param publicUrl - `ASSENT_PUBLIC_URL`.
 */
export function eventSource(publicUrl: string, orgId: string): string {
  return `${publicUrl.replace(/\/$/, '')}/v1/organizations/${orgId}`;
}

/**
 * A numbered outbox row as a CloudEvents 1.0 event in its JSON format (the feed's items and webhooks' bodies alike),
 * built by the `cloudevents` package. Its attributes are Assent's own and made the same way for every row (a UUID, a
 * type of EVENT_TYPES, an absolute URI, an RFC 3339 time, a 20-digit sequence), so the package's schema validation,
 * which took most of the time of building an event (docs/benchmarks.md, "Organisation events"), is left to the tests
 * (test/events-feed.test.ts and test/event-webhooks.test.ts validate the events they read with it).
 * @param source - `eventSource` of the row's organisation.
 */
export function cloudEventOf(row: store.FeedRow, source: string): CloudEventBody {
  const event = new CloudEvent<Record<string, unknown>>(
    {
      specversion: '1.0',
      id: row.id,
      type: row.type,
      source,
      ...(row.subject ? { subject: row.subject } : {}),
      time: row.occurredAt.toISOString(),
      datacontenttype: 'application/json',
      sequence: sequenceOf(row.seq),
      data: row.data as Record<string, unknown>,
    },
    false,
  );
  return event.toJSON() as CloudEventBody;
}
