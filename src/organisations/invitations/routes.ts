/**
 * Routes of invitations to an organisation (docs/consents.md "Invitations"):
 * - `POST {base}/organizations/{organizationID}/invitations`: invite an e-mail address (mailed link);
 * - `GET {base}/organizations/{organizationID}/invitations`: the pending ones (keyset pages by ID);
 * - `DELETE {base}/organizations/{organizationID}/invitations/{invitationID}`: revoke one;
 * - `POST {base}/user/invitations/accept`: the invited person accepts with their own access token;
 * - `GET /invitations/accept`: the HTML page of the mailed link (at the root, beside `{base}`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Links, PageQuery, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { INVITATION_PAGE_HEADERS, INVITATION_PAGE_HTML } from './page.js';
import { AcceptBody, Accepted, CreateBody, Invitation, InvitationParams } from './schemas.js';
import type { InvitationService } from './service.js';

const tags = ['individuals'];
const security = [{ bearer: [] }];
/** The routes under `{base}`. */
const apiRoutes: FastifyPluginAsyncTypebox<{ invitations: InvitationService; publicUrl: string }> = async (
  v1,
  { invitations, publicUrl },
) => {
  v1.post('/organizations/:organizationID/invitations', {
    config: { operation: 'invitations.create' },
    schema: {
      tags,
      security,
      params: OrgParams,
      body: CreateBody,
      summary:
        'Invite an e-mail address to join the organisation: ' +
        'mails a single-use link that the person accepts with their own account (201)',
      response: { 201: Invitation, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (req, reply) =>
      reply.code(201).send(await invitations.create(req.principal!, req.params.organizationID, req.body.email)),
  });

  v1.get('/organizations/:organizationID/invitations', {
    config: { operation: 'invitations.list' },
    schema: {
      tags,
      security,
      params: OrgParams,
      querystring: Type.Object(PageQuery),
      summary: 'List the pending invitations (neither accepted, revoked nor expired) by ID',
      response: { 200: Type.Object({ Invitations: Type.Array(Invitation), Links }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await invitations.page(req.params.organizationID, req.query.startid, limit);
      return { Invitations: page.invitations, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  v1.delete('/organizations/:organizationID/invitations/:invitationID', {
    config: { operation: 'invitations.revoke' },
    schema: {
      tags,
      security,
      params: InvitationParams,
      summary: 'Revoke a pending invitation: its link stops working',
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await invitations.revoke(req.principal!, req.params.organizationID, req.params.invitationID);
      return reply.code(204).send(null);
    },
  });

  v1.post('/user/invitations/accept', {
    config: { operation: 'user.invitations.accept' },
    schema: {
      tags,
      security,
      body: AcceptBody,
      summary:
        'Accept an invitation with your own access token: you are subscribed to the organisation, ' +
        'with its consent record (201; 200 when already subscribed)',
      response: { 200: Accepted, 201: Accepted, ...errors(400, 401) },
    },
    handler: async (req, reply) => {
      const accepted = await invitations.accept(req.principal!, req.body.token);
      return reply.code(accepted.subscribed ? 201 : 200).send(accepted.body);
    },
  });
};

/**
 * Registers the invitation routes; mount at the root (they add `{base}` = `/v1` themselves).
 * @param opts.invitations - the invitation service.
 * @param opts.publicUrl - `ASSENT_PUBLIC_URL`, for the page links.
 */
export const invitationRoutes: FastifyPluginAsyncTypebox<{
  invitations: InvitationService;
  publicUrl: string;
}> = async (app, { invitations, publicUrl }) => {
  await app.register(apiRoutes, { prefix: '/v1', invitations, publicUrl });

  app.get('/invitations/accept', {
    config: { operation: 'invitation.page' },
    schema: { hide: true },
    handler: async (_req, reply) => reply.headers(INVITATION_PAGE_HEADERS).send(INVITATION_PAGE_HTML),
  });
};
