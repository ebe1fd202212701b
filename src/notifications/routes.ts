/**
 * Routes of the notification transports that deliver special consent requests (the request itself
 * and its job are consent/requests/routes.ts), under `{base}`:
 * - `GET|PUT /organizations/{organizationID}/notification-transports`
 * - `GET /organizations/{organizationID}/notification-transports/webhook/attempts`: the delivery log
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../platform/core/principal.js';
import { Links, PageQuery, pageLimit, pageLinks } from '../platform/http/pagination.js';
import { errors } from '../platform/http/schemas.js';
import type { NotificationService } from './service.js';

const OrgParams = Type.Object({ organizationID: Type.String() });
const security = [{ bearer: [] }];

const TransportsBody = Type.Object({
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
/** The FCM service-account key file as JSON text, as `PUT …/notification-transports` takes it (the console's form reuses it). */
export const ServiceAccountText = Type.String({ maxLength: 20_000 });
const FcmInput = Type.Object({
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
/** A webhook URL as `PUT …/notification-transports` takes it (the console's form reuses it). */
export const WebhookUrl = Type.String({ minLength: 1, maxLength: 2000 });
const TransportsInput = Type.Object({
  email: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
  webhook: Type.Optional(Type.Union([Type.Object({ url: WebhookUrl }), Type.Null()])),
  rotatesecret: Type.Optional(Type.Boolean()),
  fcm: Type.Optional(Type.Union([FcmInput, Type.Null()])),
  apns: Type.Optional(Type.Union([ApnsInput, Type.Null()])),
});
const AttemptBody = Type.Object({
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

/** @param opts.notifications - the notification service; opts.publicUrl - for absolute URLs. */
export const notificationRoutes: FastifyPluginAsyncTypebox<{
  notifications: NotificationService;
  publicUrl: string;
}> = async (app, { notifications, publicUrl }) => {
  app.get('/organizations/:organizationID/notification-transports', {
    config: { operation: 'notifications.transports.read' },
    schema: {
      tags: ['notifications'],
      security,
      summary: 'The organisation’s notification transports (the webhook secret is never shown)',
      params: OrgParams,
      response: { 200: TransportsBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => notifications.transports(req.params.organizationID),
  });

  app.put('/organizations/:organizationID/notification-transports', {
    config: { operation: 'notifications.transports.update' },
    schema: {
      tags: ['notifications'],
      security,
      summary: 'Set the e-mail, webhook, FCM and APNs transports; absent fields keep their setting, `null` removes one',
      params: OrgParams,
      body: TransportsInput,
      response: { 200: TransportsBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) =>
      notifications.updateTransports(req.principal as Principal, req.params.organizationID, req.body),
  });

  app.get('/organizations/:organizationID/notification-transports/webhook/attempts', {
    config: { operation: 'notifications.webhook.attempts' },
    schema: {
      tags: ['notifications'],
      security,
      summary: 'The webhook delivery log, newest first',
      params: OrgParams,
      querystring: Type.Object(PageQuery),
      response: { 200: Type.Object({ Attempts: Type.Array(AttemptBody), Links }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await notifications.attempts(req.params.organizationID, req.query.startid, limit);
      const Attempts = page.items.map((a) => ({
        ID: a.id,
        JobID: a.jobId,
        UserID: a.userId,
        URL: a.url,
        Attempt: a.attempt,
        State: a.state,
        Status: a.status ?? 0,
        Error: a.error ?? '',
        DurationMs: a.durationMs,
        At: a.at.toISOString(),
      }));
      return { Attempts, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });
};
