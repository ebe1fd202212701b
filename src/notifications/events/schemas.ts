/**
 * Schemas of the organisation's change feed (docs/events.md): its query and its answer, a page of CloudEvents 1.0
 * events in the JSON format (CloudEvents 1.0 "JSON Event Format", structured mode).
 */
import { type Static, Type } from 'typebox';
import { Links } from '../../platform/http/pagination.js';

/** Default page size of the feed (count). */
export const FEED_DEFAULT_LIMIT = 100;
/** Largest page size of the feed (count). */
export const FEED_MAX_LIMIT = 1000;

/**
 * Every type the outbox emits (docs/events.md "What is emitted"): the only values `types` accepts.
 */
export const EVENT_TYPES = [
  'consent.allowed',
  'consent.disallowed',
  'consent.askme',
  'consent.expired',
  'purpose.created',
  'purpose.updated',
  'purpose.deleted',
  'data_attribute.created',
  'data_attribute.updated',
  'data_attribute.deleted',
  'individual.subscribed',
  'individual.unsubscribed',
  'individual.deleted',
] as const;

/** The feed's query; each value is validated by the service, for a clear 400. */
export const FeedQuery = Type.Object({
  after: Type.Optional(
    Type.String({ maxLength: 40, description: 'exclusive cursor: the `sequence` of the last event read (opaque)' }),
  ),
  limit: Type.Optional(Type.String({ description: `page size, 1..${FEED_MAX_LIMIT} (default ${FEED_DEFAULT_LIMIT})` })),
  types: Type.Optional(
    Type.String({ maxLength: 1000, description: 'comma-separated event types; only these are answered' }),
  ),
});
/** The feed's query. */
export type FeedQuery = Static<typeof FeedQuery>;

/** One event, CloudEvents 1.0 in its JSON format, with the `sequence` extension (CloudEvents "Sequence" extension). */
export const CloudEventBody = Type.Object({
  specversion: Type.Literal('1.0'),
  id: Type.String(),
  type: Type.String({ description: 'e.g. consent.allowed (docs/events.md)' }),
  source: Type.String({ description: 'the organisation: {ASSENT_PUBLIC_URL}/v1/organizations/{organizationID}' }),
  subject: Type.Optional(Type.String({ description: 'the individual (user ID), when the event is about one' })),
  time: Type.String({ description: 'RFC 3339: when the change happened' }),
  datacontenttype: Type.Literal('application/json'),
  sequence: Type.String({ description: 'place in the organisation’s feed: 20 decimal digits, zero-padded' }),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'the payload (docs/events.md)' }),
});
/** One event of the feed. */
export type CloudEventBody = Static<typeof CloudEventBody>;

/** A page of the feed. */
export const FeedBody = Type.Object({ Events: Type.Array(CloudEventBody), Links });
/** A page of the feed. */
export type FeedBody = Static<typeof FeedBody>;
