/**
 * Routes of the console's Integrations page (docs/web.md "Console"), at `/console/{organizationID}/integrations`:
 * - `GET …/integrations?startid=`: notification transports and the webhook delivery log (keyset-paged),
 *   the external OpenID provider, the app redirect URIs, the wallet settings and the relying parties;
 * - `POST …/integrations/transports`, `POST …/integrations/app-redirect-uris`;
 * - `POST …/integrations/relying-parties`, `POST …/integrations/relying-parties/{clientID}/delete` (once confirmed).
 * Each names the JSON API operation whose access-policy row decides who may use it (`api`), and calls
 * that operation's service with its TypeBox limits; a generated secret is shown once, on the answer page.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { RedirectUris } from '../../federation/index.js';
import { InvalidRequest } from '../../platform/core/errors.js';
import { CreateBody } from '../../provider/index.js';
import { principalOf } from '../dashboard/views.js';
import { sendPage } from '../shared/html.js';
import { IntegrationsPage, SecretPage } from './integrations.js';
import { back, type IntegrationsDeps, integrationsRefused, load } from './integrations-data.js';
import { session, signedIn } from './routes.js';
import {
  ClientForm,
  Confirmed,
  IntegrationsQuery,
  Org,
  OrgClient,
  RedirectUrisForm,
  TransportsForm,
} from './schemas.js';

const DONE: Record<string, string> = {
  transports: 'Notification transports saved.',
  fcm: 'FCM credentials saved.',
  'fcm-deleted': 'FCM credentials removed: pushes through FCM have stopped.',
  apns: 'APNs credentials saved.',
  'apns-deleted': 'APNs credentials removed: pushes through APNs have stopped.',
  'redirect-uris': 'App redirect URIs saved.',
  client: 'Relying party registered (public: it has no secret).',
  'client-deleted': 'Relying party deleted.',
  'idp-created': 'External OpenID provider saved. Register the redirect URI below at the provider.',
  'idp-updated': 'External OpenID provider saved.',
  'idp-deleted': 'External OpenID provider deleted: sign-in through it has stopped.',
  wallet: 'Wallet sign-in settings saved.',
  'wallet-deleted': 'Wallet sign-in settings deleted: wallet sign-in has stopped.',
};
/** The relying-party form's field a service's message is about (the API names the URIs `redirectUris`). */
const clientField = (message: string) =>
  /redirect/i.test(message)
    ? 'redirecturis'
    : /client ?id/i.test(message)
      ? 'clientid'
      : /name/i.test(message)
        ? 'name'
        : undefined;

/**
 * A textarea's non-empty lines, checked against the API's TypeBox schema of the list (count and length).
 * @throws {InvalidRequest} when the list breaks the schema; nothing is changed.
 */
function uriLines(text: string, schema: TSchema & { maxItems?: number }, field: string): string[] {
  const list = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (!Value.Check(schema, list))
    throw new InvalidRequest(`${field}: at most ${schema.maxItems} URIs, each at most 2000 characters`);
  return list;
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

  app.get('/console/:organizationID/integrations', {
    config: { operation: 'web.console.integrations', ...signedIn, api: 'notifications.transports.read' },
    schema: {
      params: Org,
      querystring: IntegrationsQuery,
    },
    handler: async (req, reply) => {
      const view = await load(deps, req.params.organizationID, req.webRoles, req.query.startid);
      const done = DONE[req.query.done ?? ''];
      return sendPage(reply, IntegrationsPage({ ...view, csrfToken: session(req).csrfToken, done }));
    },
  });

  app.post('/console/:organizationID/integrations/transports', {
    config: {
      operation: 'web.console.transports.update',
      ...signedIn,
      api: 'notifications.transports.update',
      refused: integrationsRefused(deps, 'transports', [], () => 'webhookurl'),
    },
    schema: {
      params: Org,
      body: TransportsForm,
    },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const url = req.body.webhookurl ?? '';
      const saved = await deps.notifications.updateTransports(principalOf(session(req)), orgId, {
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
      refused: integrationsRefused(deps, 'redirectUris', [], () => 'uris'),
    },
    schema: { params: Org, body: RedirectUrisForm },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const uris = uriLines(req.body.uris, RedirectUris.properties.RedirectURIs, 'App redirect URIs');
      await deps.federationConfigs.setAppRedirectUris(principalOf(session(req)), orgId, uris);
      return back(reply, orgId, 'redirect-uris');
    },
  });

  app.post('/console/:organizationID/integrations/relying-parties', {
    config: {
      operation: 'web.console.relying-parties.create',
      ...signedIn,
      api: 'oidc.clients.create',
      refused: integrationsRefused(deps, 'client', [], clientField),
    },
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
    // The confirmation step: the box must be ticked, else a 400 page and nothing changes (a misclick
    // would stop every sign-in of the relying party).
    schema: { params: OrgClient, body: Confirmed },
    handler: async (req, reply) => {
      await deps.oidcClients.remove(principalOf(session(req)), req.params.organizationID, req.params.clientID);
      return back(reply, req.params.organizationID, 'client-deleted');
    },
  });
};
