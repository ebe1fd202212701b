/**
 * Routes of an organisation's individuals, under `{base}`:
 * - `GET /organizations/{organizationID}/users` (keyset pages by user ID, optionally searched by name or e-mail)
 * - `GET /organizations/{organizationID}/users/count`
 * - `POST /organizations/{organizationID}/users` (create an individual, or subscribe oneself by ID)
 * - `DELETE /organizations/{organizationID}/users/{userID}` (unsubscribe; the consent record stays)
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { Links, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { AddBody, Added, Individual, ListQuery, UserParams } from './schemas.js';
import type { IndividualService } from './service.js';

const tags = ['individuals'];
const security = [{ bearer: [] }];

/** @param opts - the individual service and the public URL. */
export const individualRoutes: FastifyPluginAsyncTypebox<{
  individuals: IndividualService;
  publicUrl: string;
}> = async (app, { individuals, publicUrl }) => {
  app.get('/organizations/:organizationID/users', {
    config: { operation: 'individuals.list' },
    schema: {
      tags,
      security,
      summary: 'List the organisation’s subscribed users by ID',
      description: 'Keyset pages in user-ID order; `search` keeps only users whose name or e-mail contains it.',
      params: OrgParams,
      querystring: ListQuery,
      response: { 200: Type.Object({ Users: Type.Array(Individual), Links }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await individuals.page(req.params.organizationID, req.query.startid, limit, req.query.search);
      return { Users: page.users, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  app.get('/organizations/:organizationID/users/count', {
    config: { operation: 'individuals.count' },
    schema: {
      tags,
      security,
      summary: 'Count the subscribed users',
      params: OrgParams,
      response: { 200: Type.Object({ SubscribeUserCount: Type.Integer() }), ...errors(401, 403, 404) },
    },
    handler: async (req) => ({ SubscribeUserCount: await individuals.count(req.params.organizationID) }),
  });

  app.post('/organizations/:organizationID/users', {
    config: { operation: 'individuals.add' },
    schema: {
      tags,
      security,
      summary:
        'Subscribe yourself (your own ID as userid), or, as Owner or Admin, ' +
        'add an individual (username); a userid of someone else answers only for a ' +
        'user already subscribed (200), else 404. 201 when created or newly subscribed',
      description:
        'A username with no account is created and subscribed. A username whose account exists but is ' +
        'not subscribed here is not enrolled: its holder is mailed an invitation, and the answer is the ' +
        'same 201 with the name, e-mail and phone sent and fresh IDs that name nothing until then, so that ' +
        'it never tells whether an address has an account (docs/consents.md "Adding individuals"). ' +
        'A username already subscribed here is a 409.',
      params: OrgParams,
      body: AddBody,
      response: {
        200: Added,
        201: Added,
        ...errors(400, 401, 403, 404, 409),
      },
    },
    handler: async (req, reply) => {
      const added = await individuals.add(req.principal!, req.params.organizationID, req.body, req.log);
      return reply.code(added.created ? 201 : 200).send({ User: added.user, ConsentID: added.consentId });
    },
  });

  app.delete('/organizations/:organizationID/users/:userID', {
    config: { operation: 'individuals.remove' },
    schema: {
      tags,
      security,
      summary: 'Unsubscribe a user (the consent record and its history are kept)',
      params: UserParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await individuals.remove(req.principal as Principal, req.params.organizationID, req.params.userID);
      return reply.code(204).send(null);
    },
  });
};
