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
import { errors } from '../../platform/http/schemas.js';
import { MAX_CLIENT_NAME, MAX_CLIENT_URIS } from './rules.js';
import type { OidcClientService } from './service.js';

const OrgParams = Type.Object({ organizationID: Type.String() });
const ClientParams = Type.Object({ organizationID: Type.String(), clientID: Type.String() });
const security = [{ bearer: [] }];
const tags = ['oidc'];

const Uris = (description: string) =>
  Type.Array(Type.String({ maxLength: 2000 }), { maxItems: MAX_CLIENT_URIS, description });
const RedirectUris = Uris(
  '1 to 50 exact redirect URIs: https, http at loopback, or (public only) a private-use scheme',
);
const PostLogoutUris = Uris('0 to 50 exact post-logout redirect URIs, under the same rule');
const Name = Type.String({ maxLength: MAX_CLIENT_NAME, description: 'shown on the sign-in page; 1 to 200 characters' });
const PUBLIC = 'true: no secret, PKCE S256 required; false: a generated secret';

/** The body of a relying party's registration (the console's form reuses its limits). */
export const CreateBody = Type.Object({
  clientId: Type.Optional(
    Type.String({ maxLength: 200, description: '1 to 100 of A-Z a-z 0-9 . _ ~ -; generated when absent' }),
  ),
  name: Name,
  redirectUris: RedirectUris,
  postLogoutRedirectUris: Type.Optional(PostLogoutUris),
  public: Type.Optional(Type.Boolean({ description: `${PUBLIC}; default false` })),
});

const UpdateBody = Type.Object({
  name: Type.Optional(Name),
  redirectUris: Type.Optional(RedirectUris),
  postLogoutRedirectUris: Type.Optional(PostLogoutUris),
  public: Type.Optional(Type.Boolean({ description: 'cannot change: a value other than the stored one is a 400' })),
});

const client = {
  clientId: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  postLogoutRedirectUris: Type.Array(Type.String()),
  public: Type.Boolean(),
  createdAt: Type.String({ description: 'RFC 3339' }),
  updatedAt: Type.String({ description: 'RFC 3339' }),
};
const ClientBody = Type.Object(client);
const secretField = { description: 'answered only here, once; Assent keeps only its SHA-256' };
const CreatedBody = Type.Object({ ...client, clientSecret: Type.Optional(Type.String(secretField)) });
const RotatedBody = Type.Object({ ...client, clientSecret: Type.String(secretField) });

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
