/**
 * What the console's Integrations routes share (docs/web.md "Console"): the services they call,
 * the reading of the page's sections (each only when the roles may read it through the API), and
 * the answer to a refused change: the page again, with the service's 4xx status and message next to
 * the form, and the values as sent (never a secret).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PurposeService } from '../../consent/index.js';
import type { FederationConfigService } from '../../federation/index.js';
import type { NotificationService } from '../../notifications/index.js';
import { AssentError, NotFound } from '../../platform/core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../../platform/http/errors.js';
import type { OidcClientService, WalletSettingsService } from '../../provider/index.js';
import { type FormRefusal, type RefusedForm, refusedForm } from '../shared/form-state.js';
import { seeOther, sendPage } from '../shared/html.js';
import { type FormState, IntegrationsPage, type IntegrationsView } from './integrations.js';
import { session } from './routes.js';
import { allows } from './shell.js';

/** What the Integrations page calls: the services of the API operations it follows. */
export interface IntegrationsDeps {
  purposes: PurposeService;
  notifications: NotificationService;
  federationConfigs: FederationConfigService;
  walletSettings: WalletSettingsService;
  oidcClients: OidcClientService;
}

/** Webhook log entries per page (count). */
const ATTEMPTS_PAGE = 20;

/** After a change: 303 back to the page with its confirmation (Post/Redirect/Get). */
export const back = (reply: FastifyReply, orgId: string, done: string) =>
  seeOther(reply, `/console/${orgId}/integrations?done=${done}`, false);

/** A read that answers 404 when nothing is configured, as null. */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof NotFound) return null;
    throw err;
  }
}

/**
 * Everything the page shows, each section read only when the roles may read it through the API.
 * @param startId - the webhook log page's exclusive start (an attempt ID), or undefined for the newest.
 */
export async function load(
  deps: IntegrationsDeps,
  orgId: string,
  roles: readonly number[],
  startId: string | undefined,
): Promise<Omit<IntegrationsView, 'csrfToken' | 'done'>> {
  const may = (op: Parameters<typeof allows>[1]) => allows(roles, op);
  const [org, transports, attempts, idp, redirectUris, wallet, clients] = await Promise.all([
    deps.purposes.organisation(orgId),
    may('notifications.transports.read') ? deps.notifications.transports(orgId) : null,
    may('notifications.webhook.attempts') ? deps.notifications.attempts(orgId, startId, ATTEMPTS_PAGE) : null,
    may('federation.idp.read') ? orNull(deps.federationConfigs.read(orgId)) : undefined,
    may('federation.app-redirect-uris.read') ? deps.federationConfigs.appRedirectUris(orgId) : null,
    may('wallet.settings.read') ? orNull(deps.walletSettings.read(orgId)) : undefined,
    may('oidc.clients.list') ? deps.oidcClients.list(orgId) : null,
  ]);
  const idpCallback = may('federation.redirect-uri.read') ? deps.federationConfigs.callbackUri(orgId) : null;
  return { orgId, orgName: org.Name, roles, transports, attempts, idp, idpCallback, redirectUris, wallet, clients };
}

/**
 * The values of a refused form to show again: as sent, without the CSRF token and the write-only field.
 * @param secret - the write-only field's name (the IdP's client secret, the verifier's private key).
 */
export function shownAgain(body: Record<string, string | undefined>, secret: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([k]) => k !== '_csrf' && k !== secret)
      .map(([k, v]) => [k, v ?? '']),
  );
}

/**
 * Runs a change of one form; when the service refuses it with a 4xx, answers the page with that
 * status and message next to the form, showing `values` as sent. Anything else is rethrown (the web
 * error page: a 5xx never shows its detail).
 * @param form - which form: `idp`, `wallet`, `fcm` or `apns`.
 * @param values - the form's fields as sent, secrets left out by the caller.
 * @param fieldOf - the field the service's message is about, if it names one.
 */
export async function orFormError<V extends Record<string, string>>(
  deps: IntegrationsDeps,
  req: FastifyRequest<{ Params: { organizationID: string } }>,
  reply: FastifyReply,
  form: 'idp' | 'wallet' | 'fcm' | 'apns',
  values: V,
  change: () => Promise<FastifyReply>,
  fieldOf?: (message: string) => string | undefined,
): Promise<FastifyReply> {
  try {
    return await change();
  } catch (err) {
    if (!(err instanceof AssentError) || httpStatusOf(err) < 400 || httpStatusOf(err) >= 500) throw err;
    const view = await load(deps, req.params.organizationID, req.webRoles, undefined);
    const field = fieldOf?.(err.message);
    // The service's message beside the form (it may name several fields), and by the field it names first.
    const state: FormState = { values, error: err.message, ...(field ? { fields: { [field]: err.message } } : {}) };
    const page = IntegrationsPage({ ...view, csrfToken: session(req).csrfToken, [`${form}Form`]: state });
    return sendPage(reply.headers(httpHeadersOf(err)), page, httpStatusOf(err));
  }
}

/**
 * A form of the Integrations page: those shown again as a `RefusedForm`, and those with a `FormState`,
 * whose one message names the field (the IdP and push forms mark the field too).
 */
type IntegrationsForm = 'transports' | 'redirectUris' | 'client' | 'idp' | 'wallet' | 'fcm' | 'apns';
const FIELD_BY_FIELD = new Set<IntegrationsForm>(['transports', 'redirectUris', 'client']);

/**
 * The Integrations page again with a refused form, for the route config's `refused` (`form-state.ts`):
 * the values as sent (never `writeOnly`), the error by its field, with the refusal's status; a form
 * shown with one message (the IdP, wallet and push forms) gets the field's name and message there.
 * @param writeOnly - the fields never shown again (a secret, a key).
 * @param fieldOf - the field a service's message is about.
 */
export function integrationsRefused(
  deps: IntegrationsDeps,
  form: IntegrationsForm,
  writeOnly: readonly string[] = [],
  fieldOf?: (message: string) => string | undefined,
): FormRefusal {
  return async (req, reply, error) => {
    const refused = refusedForm(error, req.body, writeOnly, fieldOf);
    if (!refused) return null;
    const orgId = (req.params as { organizationID: string }).organizationID;
    const view = await load(deps, orgId, req.webRoles, undefined);
    const [field, message] = Object.entries(refused.fields)[0] ?? [];
    // These forms' one message names the field as well (the wallet form, a checkbox, mark no field).
    const state: RefusedForm | FormState = FIELD_BY_FIELD.has(form)
      ? refused
      : {
          values: Object.fromEntries(
            Object.entries(refused.values).filter((e): e is [string, string] => typeof e[1] === 'string'),
          ),
          error: refused.error ?? `${field}: ${message}`,
          fields: refused.fields,
        };
    const page = IntegrationsPage({ ...view, csrfToken: session(req).csrfToken, [`${form}Form`]: state });
    return sendPage(reply, page, error instanceof AssentError ? httpStatusOf(error) : 400);
  };
}
