/**
 * What the console's event webhook routes share (docs/web.md "Console"; docs/events.md "Webhooks"): the services
 * they call, the reading of the two pages (each part only when the roles may read it through the API), the form's
 * body as the API's `WebhookInput`, and the answer to a refused form: its page again, with the refusal's 4xx status,
 * the values as sent (never the secret) and the message by its field.
 */
import type { FastifyReply } from 'fastify';
import type { PurposeService } from '../../consent/index.js';
import type { WebhookInput, WebhookService } from '../../notifications/index.js';
import { AssentError, InvalidRequest } from '../../platform/core/errors.js';
import { httpStatusOf } from '../../platform/http/errors.js';
import { type FormRefusal, type RefusedForm, refusedForm } from '../shared/form-state.js';
import { seeOther, sendPage } from '../shared/html.js';
import { EventsPage, type EventsView } from './events.js';
import { session } from './routes.js';
import type { WebhookForm } from './schemas.js';
import { allows } from './shell.js';
import { WebhookPage, type WebhookPageView } from './webhook.js';

/** What the event webhook pages call: the services of the API operations they follow. */
export interface EventsDeps {
  purposes: PurposeService;
  webhooks: WebhookService;
}

/** Deliveries per page of a webhook's log (count). */
const DELIVERIES_PAGE = 20;

/** The event webhooks' list page, or one webhook's page. */
export const eventsPath = (orgId: string, webhookId?: string) =>
  `/console/${orgId}/integrations/events${webhookId ? `/${webhookId}` : ''}`;

/** After a change: 303 to the page with its confirmation (Post/Redirect/Get). */
export const backTo = (reply: FastifyReply, orgId: string, webhookId: string | undefined, done: string) =>
  seeOther(reply, `${eventsPath(orgId, webhookId)}?done=${done}`, false);

/** The list page's content: the organisation's webhooks (`webhooks.list`, which the route's guard checked). */
export async function loadList(
  deps: EventsDeps,
  orgId: string,
  roles: readonly number[],
): Promise<Omit<EventsView, 'csrfToken'>> {
  const [org, webhooks] = await Promise.all([deps.purposes.organisation(orgId), deps.webhooks.list(orgId)]);
  return { orgId, orgName: org.Name, roles, webhooks };
}

/**
 * One webhook's page content: the webhook and a page of its deliveries (when the roles may read them).
 * @param startId - the deliveries page's exclusive start (a delivery ID), or undefined for the newest.
 * @param state - only deliveries in this state (`pending`, `succeeded`, `failed`), or undefined for all.
 * @throws {NotFound} when the organisation has no such webhook; {InvalidRequest} for a malformed start or state.
 */
export async function loadWebhook(
  deps: EventsDeps,
  orgId: string,
  roles: readonly number[],
  webhookId: string,
  startId?: string,
  state?: string,
): Promise<Omit<WebhookPageView, 'csrfToken'>> {
  const [org, webhook] = await Promise.all([deps.purposes.organisation(orgId), deps.webhooks.read(orgId, webhookId)]);
  const deliveries = allows(roles, 'webhooks.deliveries')
    ? await deps.webhooks.deliveries(orgId, webhookId, startId, DELIVERIES_PAGE, state)
    : null;
  return { orgId, orgName: org.Name, roles, webhook, deliveries, ...(state ? { state } : {}) };
}

/**
 * The form's body as the API's webhook (docs/events.md "Webhooks"); the service checks the rest.
 * @param withSecret - on creation: a secret typed in is given, an empty one left to Assent to generate.
 * @throws {InvalidRequest} when no event type is ticked (the API's `minItems: 1`).
 */
export function webhookInput(body: WebhookForm, withSecret: boolean): WebhookInput {
  const types = body.types ?? [];
  if (types.length === 0) throw new InvalidRequest('Tick at least one event type.');
  return {
    payloadUrl: body.payloadurl,
    subscribedEvents: types,
    disabled: body.disabled === 'on',
    ...(withSecret && body.secret ? { secret: body.secret } : {}),
  };
}

/** The form's field a service's message is about (the API names them `payloadUrl`, `subscribedEvents`, `secret`). */
export function webhookField(message: string): string | undefined {
  if (/^payloadUrl\b/.test(message)) return 'payloadurl';
  if (/^secret\b/.test(message)) return 'secret';
  if (/event type|subscribedEvents/i.test(message)) return 'types';
  return undefined;
}

/**
 * The page of a refused webhook form, for the route config's `refused` (`form-state.tsx`): the list page with the
 * new webhook's form, or the webhook's page with its edit form, as sent (never the secret), with the refusal's
 * status (400 for the schema, the service's 4xx).
 * @param form - `create` (the list page) or `edit` (the webhook's page, from the path's `webhookID`).
 */
export function eventsRefused(deps: EventsDeps, form: 'create' | 'edit'): FormRefusal {
  return async (req, reply, error) => {
    // Threat: a secret typed into the form echoed into a page (history, a proxy, a screenshot).
    const refused: RefusedForm | null = refusedForm(error, req.body, ['secret'], webhookField);
    if (!refused) return null;
    const { organizationID: orgId, webhookID } = req.params as { organizationID: string; webhookID?: string };
    const csrfToken = session(req).csrfToken;
    const status = error instanceof AssentError ? httpStatusOf(error) : 400;
    if (form === 'create') {
      const view = await loadList(deps, orgId, req.webRoles);
      return sendPage(reply, EventsPage({ ...view, csrfToken, createForm: refused }), status);
    }
    const view = await loadWebhook(deps, orgId, req.webRoles, webhookID!);
    return sendPage(reply, WebhookPage({ ...view, csrfToken, editForm: refused }), status);
  };
}
