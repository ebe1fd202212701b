/**
 * Routes of event webhooks (docs/events.md "Webhooks"), under `{base}`:
 * - `GET|POST /organizations/{organizationID}/webhooks`
 * - `GET|PUT|DELETE /organizations/{organizationID}/webhooks/{webhookID}`
 * - `POST /organizations/{organizationID}/webhooks/{webhookID}/ping`
 * - `POST /organizations/{organizationID}/webhooks/{webhookID}/secret`
 * - `GET /organizations/{organizationID}/webhooks/{webhookID}/deliveries`
 * - `POST /organizations/{organizationID}/webhooks/{webhookID}/deliveries/{deliveryID}/redeliver`
 * - `GET /organizations/webhooks/event-types`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { Links, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { EVENT_TYPES } from '../events/schemas.js';
import {
  DeliveriesQuery,
  DeliveryBody,
  DeliveryParams,
  EventTypesBody,
  WebhookBody,
  WebhookInput,
  WebhookParams,
} from './schemas.js';
import type { WebhookService } from './service.js';

const security = [{ bearer: [] }];
const tags = ['events'];

/** @param opts.webhooks - the webhook service; opts.publicUrl - for the absolute `Links`. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService; publicUrl: string }> = async (
  app,
  { webhooks, publicUrl },
) => {
  app.get('/organizations/webhooks/event-types', {
    config: { operation: 'webhooks.event-types' },
    schema: {
      tags,
      security,
      summary: 'The event types a webhook may subscribe to',
      response: { 200: EventTypesBody, ...errors(401) },
    },
    handler: async () => ({ eventTypes: [...EVENT_TYPES] }),
  });

  app.get('/organizations/:organizationID/webhooks', {
    config: { operation: 'webhooks.list' },
    schema: {
      tags,
      security,
      summary: 'The organisation’s webhooks (secrets are never shown)',
      params: OrgParams,
      response: { 200: Type.Object({ webhooks: Type.Array(WebhookBody) }), ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ webhooks: await webhooks.list(req.params.organizationID) }),
  });

  app.post('/organizations/:organizationID/webhooks', {
    config: { operation: 'webhooks.create' },
    schema: {
      tags,
      security,
      summary: 'Register a webhook; the answer shows its signing secret, once',
      params: OrgParams,
      body: WebhookInput,
      response: { 201: WebhookBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await webhooks.create(req.principal as Principal, req.params.organizationID, req.body)),
  });

  app.get('/organizations/:organizationID/webhooks/:webhookID', {
    config: { operation: 'webhooks.read' },
    schema: {
      tags,
      security,
      summary: 'One webhook',
      params: WebhookParams,
      response: { 200: WebhookBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => webhooks.read(req.params.organizationID, req.params.webhookID),
  });

  app.put('/organizations/:organizationID/webhooks/:webhookID', {
    config: { operation: 'webhooks.update' },
    schema: {
      tags,
      security,
      summary: 'Replace a webhook’s settings (its secret stays)',
      params: WebhookParams,
      body: WebhookInput,
      response: { 200: WebhookBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) =>
      webhooks.update(req.principal as Principal, req.params.organizationID, req.params.webhookID, req.body),
  });

  app.delete('/organizations/:organizationID/webhooks/:webhookID', {
    config: { operation: 'webhooks.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete a webhook and its deliveries log',
      params: WebhookParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await webhooks.remove(req.principal as Principal, req.params.organizationID, req.params.webhookID);
      return reply.code(204).send(null);
    },
  });

  app.post('/organizations/:organizationID/webhooks/:webhookID/secret', {
    config: { operation: 'webhooks.secret.rotate' },
    schema: {
      tags,
      security,
      summary: 'Replace the signing secret; the new one is shown once, the old one also signs for 24 hours',
      params: WebhookParams,
      response: { 200: WebhookBody, ...errors(401, 403, 404) },
    },
    handler: async (req) =>
      webhooks.rotateSecret(req.principal as Principal, req.params.organizationID, req.params.webhookID),
  });

  app.post('/organizations/:organizationID/webhooks/:webhookID/ping', {
    config: { operation: 'webhooks.ping' },
    schema: {
      tags,
      security,
      summary: 'Send a webhook.ping event now, once, and answer its delivery',
      params: WebhookParams,
      response: { 200: DeliveryBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => webhooks.ping(req.params.organizationID, req.params.webhookID),
  });

  app.get('/organizations/:organizationID/webhooks/:webhookID/deliveries', {
    config: { operation: 'webhooks.deliveries' },
    schema: {
      tags,
      security,
      summary: 'The webhook’s deliveries, newest first, each with its attempts',
      params: WebhookParams,
      querystring: DeliveriesQuery,
      response: { 200: Type.Object({ deliveries: Type.Array(DeliveryBody), Links }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const { organizationID, webhookID } = req.params;
      const page = await webhooks.deliveries(organizationID, webhookID, req.query.startid, limit, req.query.state);
      return { deliveries: page.items, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  app.post('/organizations/:organizationID/webhooks/:webhookID/deliveries/:deliveryID/redeliver', {
    config: { operation: 'webhooks.redeliver' },
    schema: {
      tags,
      security,
      summary: 'Send a delivery’s event again (same event ID), as a new delivery due now',
      params: DeliveryParams,
      response: { 202: DeliveryBody, ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      const { organizationID, webhookID, deliveryID } = req.params;
      return reply
        .code(202)
        .send(await webhooks.redeliver(req.principal as Principal, organizationID, webhookID, deliveryID));
    },
  });
};
