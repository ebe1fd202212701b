/** TypeBox schemas of the notification-transport routes (docs/notifications.md). */
import { type Static, Type } from 'typebox';

/**
 * The organisation's notification transports as the API answers them (docs/notifications.md): e-mail,
 * webhook, FCM and APNs; secrets and keys are never shown, but for a webhook secret just generated.
 */
export const TransportsBody = Type.Object({
  Email: Type.Object({
    Enabled: Type.Boolean({ description: 'mail individuals who have an e-mail address when no webhook is set' }),
    Delivery: Type.String({ description: '`smtp` (SMTP_URL) or `outbox` (files in ASSENT_DATA_DIR/outbox)' }),
  }),
  Webhook: Type.Object({
    Enabled: Type.Boolean(),
    URL: Type.String(),
    Secret: Type.Optional(
      Type.String({ description: 'HMAC-SHA256 signing secret; answered only when it was just generated' }),
    ),
  }),
  FCM: Type.Object(
    { Enabled: Type.Boolean(), ProjectID: Type.String(), ClientEmail: Type.String() },
    { description: 'Firebase Cloud Messaging HTTP v1; the service-account key is never shown' },
  ),
  APNs: Type.Object(
    {
      Enabled: Type.Boolean(),
      KeyID: Type.String(),
      TeamID: Type.String(),
      BundleID: Type.String(),
      Environment: Type.String({ description: '`production` or `sandbox`' }),
    },
    { description: 'Apple Push Notification service, token authentication; the .p8 key is never shown' },
  ),
});

/** A notification-transports body. */
export type TransportsBody = Static<typeof TransportsBody>;

/** The FCM service-account key file as JSON text, as `PUT …/notification-transports` takes it (the console's form reuses it). */
export const ServiceAccountText = Type.String({ maxLength: 20_000 });

/** The FCM credentials as `PUT …/notification-transports` takes them: the service-account key file. */
export const FcmInput = Type.Object({
  serviceaccount: Type.Union([ServiceAccountText, Type.Object({}, { additionalProperties: true })], {
    description: 'the service-account key file of the Firebase project (its JSON text or the object)',
  }),
});

/** The APNs credentials as `PUT …/notification-transports` takes them (the console's form reuses their limits). */
export const ApnsInput = Type.Object({
  key: Type.Optional(
    Type.String({ maxLength: 4000, description: 'the .p8 signing key (PEM); leave out to keep the stored one' }),
  ),
  keyid: Type.String({ maxLength: 10, description: 'the key ID (10 characters)' }),
  teamid: Type.String({ maxLength: 10, description: 'the team ID (10 characters)' }),
  bundleid: Type.String({ maxLength: 155, description: 'the app bundle ID: the apns-topic' }),
  environment: Type.Optional(Type.Union([Type.Literal('production'), Type.Literal('sandbox')])),
});

/** APNs credentials as the API takes them. */
export type ApnsInput = Static<typeof ApnsInput>;

/** A webhook URL as `PUT …/notification-transports` takes it (the console's form reuses it). */
export const WebhookUrl = Type.String({ minLength: 1, maxLength: 2000 });

/**
 * The body of `PUT …/notification-transports`: each transport to set, `null` to remove it, or absent to
 * keep it; `rotatesecret` generates a new webhook signing secret.
 */
export const TransportsInput = Type.Object({
  email: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
  webhook: Type.Optional(Type.Union([Type.Object({ url: WebhookUrl }), Type.Null()])),
  rotatesecret: Type.Optional(Type.Boolean()),
  fcm: Type.Optional(Type.Union([FcmInput, Type.Null()])),
  apns: Type.Optional(Type.Union([ApnsInput, Type.Null()])),
});

/** A `PUT …/notification-transports` body. */
export type TransportsInput = Static<typeof TransportsInput>;

/** One webhook delivery attempt as the API answers it (docs/notifications.md "Webhook"). */
export const AttemptBody = Type.Object({
  ID: Type.String(),
  JobID: Type.String(),
  UserID: Type.String(),
  URL: Type.String(),
  Attempt: Type.Integer({ description: '1 for the first try' }),
  State: Type.String({
    description:
      '`sending` (recorded before the request left; no outcome yet), `delivered`, ' +
      '`failed`, or `unknown` (the sending process stopped before the answer came)',
  }),
  Status: Type.Integer({ description: 'HTTP status of the answer; 0 when none came' }),
  Error: Type.String({ description: 'why it failed; "" on success' }),
  DurationMs: Type.Integer({ description: 'milliseconds' }),
  At: Type.String({ description: 'RFC 3339' }),
});

/** A delivery attempt body. */
export type AttemptBody = Static<typeof AttemptBody>;
