/**
 * Routes of relying-party registration at an organisation's OpenID provider, under `{base}`
 * (docs/api.md "Authorization endpoint"; docs/wallet.md "Relying parties"; docs/decisions/0016-oidc-relying-parties.md):
 * - `POST|GET /organizations/{organizationID}/oidc-clients`: register, list
 * - `GET|PUT|DELETE /organizations/{organizationID}/oidc-clients/{clientID}`: read, update, delete
 * - `POST /organizations/{organizationID}/oidc-clients/{clientID}/secret`: rotate the secret
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { ClientBody, ClientParams, CreateBody, CreatedBody, RotatedBody, UpdateBody } from './schemas.js';
import type { OidcClientService } from './service.js';

const security = [{ bearer: [] }];
const tags = ['oidc'];

/** The options of the routes: the registration service, built by `createContext` (`ctx.oidc.clients`). */
export interface OidcRouteOptions {
  clients: OidcClientService;
}

/** @param opts - the services. */
export const oidcClientRoutes: FastifyPluginAsyncTypebox<OidcRouteOptions> = async (app, { clients }) => {
  app.post('/organizations/:organizationID/oidc-clients', {
    config: { operation: 'oidc.clients.create' },
    schema: {
      tags,
      security,
      summary: 'Register a relying party; a confidential one gets its clientSecret in this answer only',
      params: OrgParams,
      body: CreateBody,
      response: { 201: CreatedBody, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await clients.create(req.principal as Principal, req.params.organizationID, req.body)),
  });
  app.get('/organizations/:organizationID/oidc-clients', {
    config: { operation: 'oidc.clients.list' },
    schema: {
      tags,
      security,
      summary: 'List the relying parties, by clientId (never a secret)',
      params: OrgParams,
      response: { 200: Type.Object({ clients: Type.Array(ClientBody) }), ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ clients: await clients.list(req.params.organizationID) }),
  });
  app.get('/organizations/:organizationID/oidc-clients/:clientID', {
    config: { operation: 'oidc.clients.read' },
    schema: {
      tags,
      security,
      summary: 'Get a relying party (never its secret)',
      params: ClientParams,
      response: { 200: ClientBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => clients.read(req.params.organizationID, req.params.clientID),
  });
  app.put('/organizations/:organizationID/oidc-clients/:clientID', {
    config: { operation: 'oidc.clients.update' },
    schema: {
      tags,
      security,
      summary: 'Update name and URIs; absent fields keep their value; public cannot change',
      params: ClientParams,
      body: UpdateBody,
      response: { 200: ClientBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) =>
      clients.update(req.principal as Principal, req.params.organizationID, req.params.clientID, req.body),
  });
  app.post('/organizations/:organizationID/oidc-clients/:clientID/secret', {
    config: { operation: 'oidc.clients.secret.rotate' },
    schema: {
      tags,
      security,
      summary: 'Rotate a confidential client’s secret: the new one is answered once, the old one stops working',
      params: ClientParams,
      response: { 200: RotatedBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) =>
      clients.rotateSecret(req.principal as Principal, req.params.organizationID, req.params.clientID),
  });
  app.delete('/organizations/:organizationID/oidc-clients/:clientID', {
    config: { operation: 'oidc.clients.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete a relying party',
      params: ClientParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await clients.remove(req.principal as Principal, req.params.organizationID, req.params.clientID);
      return reply.code(204).send(null);
    },
  });
};
