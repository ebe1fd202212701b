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
import { errors, OrgParams } from '../platform/http/schemas.js';
import { AttemptBody, TransportsBody, TransportsInput } from './schemas.js';
import type { NotificationService } from './service.js';

const security = [{ bearer: [] }];

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
