/**
 * Routes of the console's Integrations page (docs/web.md "Console"), at `/console/{organizationID}/integrations`:
 * - `GET …/integrations?startid=`: notification transports and the webhook delivery log (keyset-paged),
 *   the external OpenID provider, the app redirect URIs, the wallet settings and the relying parties;
 * - `POST …/integrations/transports`, `POST …/integrations/app-redirect-uris`;
 * - `POST …/integrations/relying-parties`, `POST …/integrations/relying-parties/{clientID}/delete`.
 * Each names the JSON API operation whose access-policy row decides who may use it (`api`), and calls
 * that operation's service with its TypeBox limits; a generated secret is shown once, on the answer page.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { RedirectUris } from '../../federation/routes.js';
import type { FederationConfigService } from '../../federation/service.js';
import { BadRequest, NotFound } from '../../http/errors.js';
import type { WebSession } from '../../identity/web-sessions.js';
import { WebhookUrl } from '../../notifications/routes.js';
import type { NotificationService } from '../../notifications/service.js';
import { CreateBody } from '../../oidc/routes.js';
import type { OidcClientService } from '../../oidc/service.js';
import type { PurposeService } from '../../purposes/service.js';
import type { WalletSettingsService } from '../../wallet/settings.js';
import { principalOf } from '../dashboard/views.js';
import { seeOther, sendPage } from '../html.js';
import { IntegrationsPage, type IntegrationsView, SecretPage } from './integrations.js';
import { allows } from './shell.js';

/** What the Integrations page calls: the services of the API operations it follows. */
export interface IntegrationsDeps {
  purposes: PurposeService;
  notifications: NotificationService;
  federationConfigs: FederationConfigService;
  walletSettings: WalletSettingsService;
  oidcClients: OidcClientService;
}

const signedIn = { web: 'signed-in', signIn: '/console/sign-in' } as const;
const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 100 })) };
const Org = Type.Object({ organizationID: Type.String() });
const OrgClient = Type.Object({ organizationID: Type.String(), clientID: Type.String() });
const session = (req: FastifyRequest) => req.webSession as WebSession;
/** Room for the API's largest URI list (50 URIs of 2000 characters) as lines of a textarea. */
const UriLines = Type.String({ maxLength: 110_000 });
/** The relying-party form: the API's registration fields; the URIs one per line, `public` a checkbox. */
const ClientForm = Type.Object({
  ...Csrf,
  clientid: Type.Optional(Type.Union([Type.Literal(''), CreateBody.properties.clientId])),
  name: CreateBody.properties.name,
  redirecturis: UriLines,
  public: Type.Optional(Type.Literal('on')),
});
const DONE: Record<string, string> = {
  transports: 'Notification transports saved.',
  'redirect-uris': 'App redirect URIs saved.',
  client: 'Relying party registered (public: it has no secret).',
  'client-deleted': 'Relying party deleted.',
};
/** Webhook log entries per page (count). */
const ATTEMPTS_PAGE = 20;

/**
 * A textarea's non-empty lines, checked against the API's TypeBox schema of the list (count and length).
 * @throws {BadRequest} when the list breaks the schema; nothing is changed.
 */
function uriLines(text: string, schema: TSchema & { maxItems?: number }, field: string): string[] {
  const list = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (!Value.Check(schema, list))
    throw new BadRequest(`${field}: at most ${schema.maxItems} URIs, each at most 2000 characters`);
  return list;
}

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
async function load(
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
  return { orgId, orgName: org.Name, roles, transports, attempts, idp, redirectUris, wallet, clients };
}

/** @param opts - the services. */
export const integrationsRoutes: FastifyPluginAsyncTypebox<IntegrationsDeps> = async (app, deps) => {
  const showSecret = async (
    req: FastifyRequest<{ Params: { organizationID: string } }>,
    reply: FastifyReply,
    title: string,
    secret: string,
    { what }: { what: string },
  ) => {
    const orgId = req.params.organizationID;
    const org = await deps.purposes.organisation(orgId);
    const props = { orgId, orgName: org.Name, roles: req.webRoles, csrfToken: session(req).csrfToken };
    return sendPage(reply, SecretPage({ ...props, title, what, secret }));
  };
  const back = (reply: FastifyReply, orgId: string, done: string) =>
    seeOther(reply, `/console/${orgId}/integrations?done=${done}`, false);

  app.get('/console/:organizationID/integrations', {
    config: { operation: 'web.console.integrations', ...signedIn, api: 'notifications.transports.read' },
    schema: {
      params: Org,
      querystring: Type.Object({
        startid: Type.Optional(Type.String({ maxLength: 100 })),
        done: Type.Optional(Type.String({ maxLength: 40 })),
      }),
    },
    handler: async (req, reply) => {
      const view = await load(deps, req.params.organizationID, req.webRoles, req.query.startid);
      const done = DONE[req.query.done ?? ''];
      return sendPage(reply, IntegrationsPage({ ...view, csrfToken: session(req).csrfToken, done }));
    },
  });

  app.post('/console/:organizationID/integrations/transports', {
    config: { operation: 'web.console.transports.update', ...signedIn, api: 'notifications.transports.update' },
    schema: {
      params: Org,
      body: Type.Object({
        ...Csrf,
        email: Type.Optional(Type.Literal('on')),
        webhookurl: Type.Optional(Type.Union([Type.Literal(''), WebhookUrl])),
        rotatesecret: Type.Optional(Type.Literal('on')),
      }),
    },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const url = req.body.webhookurl ?? '';
      const saved = await deps.notifications.updateTransports(orgId, {
        email: { enabled: req.body.email === 'on' },
        webhook: url === '' ? null : { url },
        rotatesecret: req.body.rotatesecret === 'on',
      });
      if (!saved.Webhook.Secret) return back(reply, orgId, 'transports');
      // A new signing secret exists only in this answer (the API's rule): shown once, on a no-store page.
      return showSecret(req, reply, 'Webhook signing secret', saved.Webhook.Secret, {
        what: `The webhook at ${saved.Webhook.URL} signs its requests (Assent-Signature) with this secret.`,
      });
    },
  });

  app.post('/console/:organizationID/integrations/app-redirect-uris', {
    config: {
      operation: 'web.console.app-redirect-uris.update',
      ...signedIn,
      api: 'federation.app-redirect-uris.update',
    },
    schema: { params: Org, body: Type.Object({ ...Csrf, uris: UriLines }) },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const uris = uriLines(req.body.uris, RedirectUris.properties.RedirectURIs, 'App redirect URIs');
      await deps.federationConfigs.setAppRedirectUris(principalOf(session(req)), orgId, uris);
      return back(reply, orgId, 'redirect-uris');
    },
  });

  app.post('/console/:organizationID/integrations/relying-parties', {
    config: { operation: 'web.console.relying-parties.create', ...signedIn, api: 'oidc.clients.create' },
    schema: { params: Org, body: ClientForm },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const { clientid, name, redirecturis } = req.body;
      const created = await deps.oidcClients.create(principalOf(session(req)), orgId, {
        ...(clientid ? { clientId: clientid } : {}),
        name,
        redirectUris: uriLines(redirecturis, CreateBody.properties.redirectUris, 'Redirect URIs'),
        public: req.body.public === 'on',
      });
      if (!created.clientSecret) return back(reply, orgId, 'client');
      // The client secret exists only in this answer (Assent keeps its SHA-256): shown once, on a no-store page.
      return showSecret(req, reply, 'Relying party registered', created.clientSecret, {
        what: `The client secret of ${created.name} (client ID ${created.clientId}).`,
      });
    },
  });

  app.post('/console/:organizationID/integrations/relying-parties/:clientID/delete', {
    config: { operation: 'web.console.relying-parties.delete', ...signedIn, api: 'oidc.clients.delete' },
    schema: { params: OrgClient, body: Type.Object(Csrf) },
    handler: async (req, reply) => {
      await deps.oidcClients.remove(principalOf(session(req)), req.params.organizationID, req.params.clientID);
      return back(reply, req.params.organizationID, 'client-deleted');
    },
  });
};
