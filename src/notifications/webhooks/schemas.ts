/**
 * Schemas of event webhooks (docs/events.md "Webhooks"): iGrant's webhook resource (`payloadUrl`, `subscribedEvents`,
 * `disabled`, `contentType`) with Assent's secret, deliveries log and event types.
 */
import { type Static, Type } from 'typebox';
import { EVENT_TYPES } from '../events/schemas.js';

/** The path of one webhook. */
export const WebhookParams = Type.Object({
  organizationID: Type.String(),
  webhookID: Type.String(),
});

/** The path of one delivery. */
export const DeliveryParams = Type.Object({
  organizationID: Type.String(),
  webhookID: Type.String(),
  deliveryID: Type.String(),
});

/** A webhook as created (POST) or replaced (PUT). */
export const WebhookInput = Type.Object(
  {
    payloadUrl: Type.String({
      maxLength: 2048,
      description: 'https URL (http only for hosts in ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS); never a non-public address',
    }),
    subscribedEvents: Type.Array(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))), {
      minItems: 1,
      maxItems: EVENT_TYPES.length,
      description: 'the event types to deliver (GET {base}/organizations/webhooks/event-types)',
    }),
    disabled: Type.Optional(Type.Boolean({ description: 'false unless given' })),
    contentType: Type.Optional(Type.Literal('application/json')),
    secret: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'on creation only: `whsec_` and the base64 of 24 to 64 bytes; generated when absent',
      }),
    ),
  },
  { additionalProperties: false },
);
/** A webhook as created or replaced. */
export type WebhookInput = Static<typeof WebhookInput>;

/** A webhook as answered; `secret` only in the answers to creation and rotation. */
export const WebhookBody = Type.Object({
  id: Type.String(),
  organizationId: Type.String(),
  payloadUrl: Type.String(),
  subscribedEvents: Type.Array(Type.String()),
  disabled: Type.Boolean(),
  disabledReason: Type.Optional(
    Type.String({ description: '`admin` (set so) or `failing` (disabled after failing for the disable window)' }),
  ),
  contentType: Type.String(),
  failingSince: Type.Optional(
    Type.String({ description: 'RFC 3339: the first failed attempt since the last success' }),
  ),
  lastSuccessAt: Type.Optional(Type.String({ description: 'RFC 3339, to within a second' })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  secret: Type.Optional(Type.String({ description: 'the signing secret (`whsec_…`): shown this once' })),
});
/** A webhook as answered. */
export type WebhookView = Static<typeof WebhookBody>;

/** One attempt in the deliveries log. */
export const AttemptBody = Type.Object({
  attempt: Type.Integer({ description: 'from 1' }),
  at: Type.String({ description: 'RFC 3339' }),
  durationMs: Type.Integer({ description: 'milliseconds' }),
  status: Type.Optional(Type.Integer({ description: 'the answer’s HTTP status; absent when none came' })),
  error: Type.Optional(Type.String({ description: 'why no usable answer came' })),
  requestHeaders: Type.Record(Type.String(), Type.String()),
  responseHeaders: Type.Record(Type.String(), Type.String()),
});

/** One delivery in the deliveries log. */
export const DeliveryBody = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'the CloudEvents id, and the `webhook-id` header' }),
  eventType: Type.String(),
  state: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Array(AttemptBody),
  nextAttemptAt: Type.Optional(Type.String({ description: 'RFC 3339, while pending' })),
  redeliveryOf: Type.Optional(Type.String({ description: 'the delivery this one sends again' })),
  createdAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
});
/** One delivery in the deliveries log. */
export type DeliveryView = Static<typeof DeliveryBody>;

/** The deliveries log's query. */
export const DeliveriesQuery = Type.Object({
  startid: Type.Optional(Type.String({ description: 'exclusive: the page starts after this delivery' })),
  limit: Type.Optional(Type.String()),
  state: Type.Optional(Type.String({ description: 'pending, succeeded or failed' })),
});

/** The event types a webhook may subscribe to. */
export const EventTypesBody = Type.Object({
  eventTypes: Type.Array(Type.String()),
});
