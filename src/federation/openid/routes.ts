/**
 * Routes of federation with an organisation's external OpenID Connect provider, under `{base}`
 * (docs/api.md "Identity management", the seven IdP operations; docs/decisions/0013-federation-broker.md):
 * - `POST|PUT|GET|DELETE /organizations/{organizationID}/idp/open-id`: the configuration
 * - `GET /organizations/{organizationID}/idp/open-id/redirect-uri`: the callback to register at the provider
 * - `GET|PUT /organizations/{organizationID}/idp/open-id/app-redirect-uris`: where sign-ins may return
 * - `GET …/idp/open-id/authorize`, `GET …/idp/open-id/callback`: the browser's round trip
 * - `POST …/idp/open-id/exchange`: code → login response; `POST …/idp/open-id/logout`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { absentBodyAsEmpty } from '../../platform/http/body-keys.js';
import { errors } from '../../platform/http/schemas.js';
import type { Broker } from './broker.js';
import { IdpBody, IdpInput } from './config.js';
import type { Exchange } from './exchange.js';
import type { FederatedLogout } from './logout.js';
import {
  AuthorizeQuery,
  CallbackQuery,
  ExchangeQuery,
  OrgParams,
  RedirectUriBody,
  RedirectUris,
  security,
  tags,
} from './schemas.js';
import type { FederationConfigService } from './service.js';

/** The federation services, built by `createContext` (`ctx.federation`): the options of the routes. */
export interface FederationServices {
  /** The IdP configuration and the app redirect URIs (docs/api.md "Identity management"). */
  configs: FederationConfigService;
  /** The authorize and callback steps. */
  broker: Broker;
  /** The code exchange. */
  exchange: Exchange;
  /** The federated logout. */
  logout: FederatedLogout;
}

/** @param opts - the services. */
export const federationRoutes: FastifyPluginAsyncTypebox<FederationServices> = async (
  app,
  { configs, broker, exchange, logout },
) => {
  const configBody = { params: OrgParams, body: Type.Optional(IdpInput) };

  app.post('/organizations/:organizationID/idp/open-id', {
    config: { operation: 'federation.idp.create' },
    schema: {
      tags,
      security,
      summary: 'Add external IDP (clientSecret is write-only: never answered)',
      ...configBody,
      response: { 201: IdpBody, ...errors(400, 401, 403, 404, 409) },
    },
    preValidation: absentBodyAsEmpty, // docs/api.md "Identity management": the body is optional (an empty one fails validation on POST)
    handler: async (req, reply) =>
      reply.code(201).send(await configs.create(req.principal as Principal, req.params.organizationID, req.body ?? {})),
  });
  app.put('/organizations/:organizationID/idp/open-id', {
    config: { operation: 'federation.idp.update' },
    schema: {
      tags,
      security,
      summary: 'Update external IDP; absent fields keep their value (a body without clientSecret keeps the stored one)',
      ...configBody,
      response: { 200: IdpBody, ...errors(400, 401, 403, 404) },
    },
    preValidation: absentBodyAsEmpty, // docs/api.md "Identity management": the body is optional (an empty one fails validation on POST)
    handler: async (req) => configs.update(req.principal as Principal, req.params.organizationID, req.body ?? {}),
  });
  app.get('/organizations/:organizationID/idp/open-id', {
    config: { operation: 'federation.idp.read' },
    schema: {
      tags,
      security,
      summary: 'Get external IDP (without clientSecret)',
      params: OrgParams,
      response: { 200: IdpBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => configs.read(req.params.organizationID),
  });
  app.delete('/organizations/:organizationID/idp/open-id', {
    config: { operation: 'federation.idp.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete external IDP',
      params: OrgParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await configs.remove(req.principal as Principal, req.params.organizationID);
      return reply.code(204).send(null);
    },
  });
  app.get('/organizations/:organizationID/idp/open-id/redirect-uri', {
    config: { operation: 'federation.redirect-uri.read' },
    schema: {
      tags,
      security,
      summary: 'The redirect URI to register at the external provider',
      params: OrgParams,
      response: { 200: RedirectUriBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ RedirectURI: configs.callbackUri(req.params.organizationID) }),
  });
  app.get('/organizations/:organizationID/idp/open-id/app-redirect-uris', {
    config: { operation: 'federation.app-redirect-uris.read' },
    schema: {
      tags,
      security,
      summary: 'The app URIs a finished sign-in may return to',
      params: OrgParams,
      response: { 200: RedirectUris, ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ RedirectURIs: await configs.appRedirectUris(req.params.organizationID) }),
  });
  app.put('/organizations/:organizationID/idp/open-id/app-redirect-uris', {
    config: { operation: 'federation.app-redirect-uris.update' },
    schema: {
      tags,
      security,
      summary: 'Replace the app URIs a finished sign-in may return to',
      params: OrgParams,
      body: RedirectUris,
      response: { 200: RedirectUris, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => ({
      RedirectURIs: await configs.setAppRedirectUris(
        req.principal as Principal,
        req.params.organizationID,
        req.body.RedirectURIs,
      ),
    }),
  });

  app.get('/organizations/:organizationID/idp/open-id/authorize', {
    config: { operation: 'federation.authorize' },
    schema: {
      tags,
      summary: 'Start a sign-in at the external provider: 302 to its authorization endpoint',
      params: OrgParams,
      querystring: AuthorizeQuery,
      response: { 302: Type.Null(), ...errors(400, 404, 429) },
    },
    handler: async (req, reply) =>
      reply.redirect(
        await broker.authorize(req.params.organizationID, req.query.redirect_uri, req.query.state, req.ip),
        302,
      ),
  });
  app.get('/organizations/:organizationID/idp/open-id/callback', {
    config: { operation: 'federation.callback' },
    schema: {
      tags,
      summary:
        'The provider returns here: 303 to the app URI with `code` and `state`, ' +
        'or with `error` and `error_description`',
      params: OrgParams,
      querystring: CallbackQuery,
      response: { 303: Type.Null(), ...errors(400) },
    },
    handler: async (req, reply) => {
      const { error_description: _ignored, ...query } = req.query;
      return reply.redirect((await broker.callback(req.params.organizationID, query, req.log)).location, 303);
    },
  });
  app.post('/organizations/:organizationID/idp/open-id/exchange', {
    config: { operation: 'federation.exchange', oauth: true },
    schema: {
      tags,
      summary: 'Exchange auth code: an Assent code (single use, 60 s) or the provider’s code, for the login response',
      params: OrgParams,
      querystring: ExchangeQuery,
      response: { 200: Type.Ref('LoginResponse'), ...errors(400, 404, 429, 502) },
    },
    handler: async (req) =>
      exchange.redeem(req.params.organizationID, req.query.redirect_uri, req.query.code, req.ip, req.log),
  });
  app.post('/organizations/:organizationID/idp/open-id/logout', {
    config: { operation: 'federation.logout' },
    schema: {
      tags,
      security,
      summary: 'Logout OpenID client: ends the Assent session, and asks the provider to end its own',
      params: OrgParams,
      response: { 204: Type.Null(), ...errors(401, 404) },
    },
    handler: async (req, reply) => {
      const frontChannel = await logout.end(req.principal as Principal, req.params.organizationID, req.log);
      if (frontChannel) reply.header('link', `<${frontChannel}>; rel="end-session"`);
      return reply.code(204).send(null);
    },
  });
};
