/**
 * Routes of the console's event webhooks (docs/web.md "Console"; docs/events.md "Webhooks"), in the Integrations
 * section, at `/console/{organizationID}/integrations/events`:
 * - `GET …/events`: the webhooks (`webhooks.list`); `POST …/events`: adds one (`webhooks.create`), its secret shown once;
 * - `GET …/events/{webhookID}?startid=&state=`: the webhook and its deliveries (`webhooks.read`, `webhooks.deliveries`);
 * - `POST …/events/{webhookID}`: edits it (`webhooks.update`); `POST …/delete` (`webhooks.delete`, once confirmed);
 * - `POST …/secret`: a new secret, shown once (`webhooks.secret.rotate`); `POST …/ping`: the page with the ping's
 *   outcome (`webhooks.ping`); `POST …/deliveries/{deliveryID}/redeliver` (`webhooks.redeliver`).
 * Each names the API operation whose access-policy row decides who may use it (`api`) and calls `WebhookService`, the
 * API's service, so its checks (the https and SSRF rules of the URL, the event types, the secret's form) are the only
 * ones; a refusal answers the form's page again with its 4xx and nothing changes.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PREVIOUS_SECRET_GRACE_SECONDS, type WebhookView } from '../../notifications/index.js';
import { principalOf } from '../dashboard/views.js';
import { sendPage } from '../shared/html.js';
import { EventsPage } from './events.js';
import {
  backTo,
  type EventsDeps,
  eventsPath,
  eventsRefused,
  loadList,
  loadWebhook,
  webhookInput,
} from './events-data.js';
import { SecretPage } from './integrations.js';
import { session, signedIn } from './routes.js';
import { Confirmed, DoneQuery, Org, OrgDelivery, OrgWebhook, WebhookForm, WebhookQuery } from './schemas.js';
import { WebhookPage } from './webhook.js';

const DONE: Record<string, string> = {
  updated: 'Webhook saved.',
  deleted: 'Webhook deleted: its deliveries have stopped.',
  redelivered: 'Redelivery queued: the event is sent again now, with the same webhook-id.',
};

/** @param deps - the services. */
export const consoleEventsRoutes: FastifyPluginAsyncTypebox<EventsDeps> = async (app, deps) => {
  /** The answer page of a change that generated a secret: shown this once (the API's rule), on a no-store page. */
  const showSecret = async (req: FastifyRequest, reply: FastifyReply, w: WebhookView, title: string, note?: string) => {
    const orgId = w.organizationId;
    const org = await deps.purposes.organisation(orgId);
    const props = { orgId, orgName: org.Name, roles: req.webRoles, csrfToken: session(req).csrfToken };
    const what = `The webhook at ${w.payloadUrl} signs its deliveries (the webhook-signature header, Standard Webhooks) with this secret.`;
    const back = { href: eventsPath(orgId, w.id), label: 'Go to the webhook' };
    return sendPage(reply, SecretPage({ ...props, title, what, secret: w.secret!, back, ...(note ? { note } : {}) }));
  };

  app.get('/console/:organizationID/integrations/events', {
    config: { operation: 'web.console.webhooks', ...signedIn, api: 'webhooks.list' },
    schema: { params: Org, querystring: DoneQuery },
    handler: async (req, reply) => {
      const view = await loadList(deps, req.params.organizationID, req.webRoles);
      const done = DONE[req.query.done ?? ''];
      return sendPage(reply, EventsPage({ ...view, csrfToken: session(req).csrfToken, done }));
    },
  });

  app.post('/console/:organizationID/integrations/events', {
    config: {
      operation: 'web.console.webhooks.create',
      ...signedIn,
      api: 'webhooks.create',
      refused: eventsRefused(deps, 'create'),
    },
    schema: { params: Org, body: WebhookForm },
    handler: async (req, reply) => {
      const input = webhookInput(req.body, true);
      const created = await deps.webhooks.create(principalOf(session(req)), req.params.organizationID, input);
      return showSecret(req, reply, created, 'Webhook added');
    },
  });

  app.get('/console/:organizationID/integrations/events/:webhookID', {
    config: { operation: 'web.console.webhook', ...signedIn, api: 'webhooks.read' },
    schema: { params: OrgWebhook, querystring: WebhookQuery },
    handler: async (req, reply) => {
      const { organizationID: orgId, webhookID } = req.params;
      const { startid, state } = req.query;
      const view = await loadWebhook(deps, orgId, req.webRoles, webhookID, startid || undefined, state || undefined);
      const done = DONE[req.query.done ?? ''];
      return sendPage(reply, WebhookPage({ ...view, csrfToken: session(req).csrfToken, done }));
    },
  });

  app.post('/console/:organizationID/integrations/events/:webhookID', {
    config: {
      operation: 'web.console.webhooks.update',
      ...signedIn,
      api: 'webhooks.update',
      refused: eventsRefused(deps, 'edit'),
    },
    schema: { params: OrgWebhook, body: WebhookForm },
    handler: async (req, reply) => {
      const { organizationID: orgId, webhookID } = req.params;
      // The secret is not part of an edit (the API's PUT refuses it): rotated with its own form.
      await deps.webhooks.update(principalOf(session(req)), orgId, webhookID, webhookInput(req.body, false));
      return backTo(reply, orgId, webhookID, 'updated');
    },
  });

  app.post('/console/:organizationID/integrations/events/:webhookID/delete', {
    config: { operation: 'web.console.webhooks.delete', ...signedIn, api: 'webhooks.delete' },
    // The confirmation step: the box must be ticked, else a 400 page and nothing changes (the log goes with it).
    schema: { params: OrgWebhook, body: Confirmed },
    handler: async (req, reply) => {
      const { organizationID: orgId, webhookID } = req.params;
      await deps.webhooks.remove(principalOf(session(req)), orgId, webhookID);
      return backTo(reply, orgId, undefined, 'deleted');
    },
  });

  app.post('/console/:organizationID/integrations/events/:webhookID/secret', {
    config: { operation: 'web.console.webhooks.secret.rotate', ...signedIn, api: 'webhooks.secret.rotate' },
    schema: { params: OrgWebhook },
    handler: async (req, reply) => {
      const { organizationID: orgId, webhookID } = req.params;
      const rotated = await deps.webhooks.rotateSecret(principalOf(session(req)), orgId, webhookID);
      const hours = PREVIOUS_SECRET_GRACE_SECONDS / 3600;
      const note = `The previous secret keeps signing too, as a second signature, for ${hours} hours: switch the receiver to this one before then.`;
      return showSecret(req, reply, rotated, 'Webhook secret rotated', note);
    },
  });

  app.post('/console/:organizationID/integrations/events/:webhookID/ping', {
    config: { operation: 'web.console.webhooks.ping', ...signedIn, api: 'webhooks.ping' },
    schema: { params: OrgWebhook },
    handler: async (req, reply) => {
      const { organizationID: orgId, webhookID } = req.params;
      const pinged = await deps.webhooks.ping(orgId, webhookID);
      // The outcome is this answer's (a reload asks before sending again): the page with it on top.
      const view = await loadWebhook(deps, orgId, req.webRoles, webhookID);
      return sendPage(reply, WebhookPage({ ...view, csrfToken: session(req).csrfToken, pinged }));
    },
  });

  app.post('/console/:organizationID/integrations/events/:webhookID/deliveries/:deliveryID/redeliver', {
    config: { operation: 'web.console.webhooks.redeliver', ...signedIn, api: 'webhooks.redeliver' },
    schema: { params: OrgDelivery },
    handler: async (req, reply) => {
      const { organizationID: orgId, webhookID, deliveryID } = req.params;
      await deps.webhooks.redeliver(principalOf(session(req)), orgId, webhookID, deliveryID);
      return backTo(reply, orgId, webhookID, 'redelivered');
    },
  });
};
