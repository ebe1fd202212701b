/**
 * Routes of an organisation's staff (docs/staff.md):
 * - `GET {base}/organizations/{organizationID}/admins`: the staff with their roles (keyset pages by user ID);
 * - `POST {base}/organizations/{organizationID}/admins`: invite an e-mail address with roles (mailed link);
 * - `GET …/admins/invitations`, `DELETE …/admins/invitations/{invitationID}`: the pending invitations, revoking one;
 * - `PUT …/admins/{userID}`: a member's roles from now on; `DELETE …/admins/{userID}`: removes them from the staff;
 * - `POST {base}/user/staff-invitations/accept`: the invited person accepts with their own access token;
 * - `POST {base}/staff-invitations/register`: the invited person creates an account and accepts;
 * - `GET /staff-invitations/accept`: the HTML page of the mailed link (at the root, beside `{base}`);
 * - `GET, PUT {base}/organizations/{organizationID}/staff-policy`: whether staff must use a second factor.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PageQuery, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import type { StaffInvitations } from './invitations.js';
import { STAFF_INVITATION_PAGE_HEADERS, STAFF_INVITATION_PAGE_HTML } from './page.js';
import type { StaffPolicies } from './policy.js';
import {
  AcceptBody,
  InviteBody,
  Joined,
  RegisterBody,
  RolesBody,
  StaffInvitation,
  StaffInvitationPage,
  StaffInvitationParams,
  StaffMember,
  StaffPage,
  StaffParams,
  StaffPolicy,
  StaffPolicyBody,
} from './schemas.js';
import type { StaffService } from './service.js';

const tags = ['staff'];
const security = [{ bearer: [] }];

/** What the staff routes call. */
export interface StaffRouteDeps {
  staff: StaffService;
  staffInvitations: StaffInvitations;
  policies: StaffPolicies;
  publicUrl: string;
}

const apiRoutes: FastifyPluginAsyncTypebox<StaffRouteDeps> = async (v1, deps) => {
  const { staff, staffInvitations, policies, publicUrl } = deps;
  v1.get('/organizations/:organizationID/staff-policy', {
    config: { operation: 'orgs.staff-policy.read' },
    schema: {
      tags,
      security,
      params: OrgParams,
      summary: 'Whether the staff must use a second factor to reach the console',
      response: { 200: StaffPolicy, ...errors(401, 403, 404) },
    },
    handler: (req) => policies.read(req.params.organizationID),
  });

  v1.put('/organizations/:organizationID/staff-policy', {
    config: { operation: 'orgs.staff-policy.update' },
    schema: {
      tags,
      security,
      params: OrgParams,
      body: StaffPolicyBody,
      summary:
        'Require (or not) a second factor of the staff: without one, they reach only the console’s Security page',
      response: { 200: StaffPolicy, ...errors(400, 401, 403, 404) },
    },
    handler: (req) => policies.set(req.principal!, req.params.organizationID, req.body.staffmfarequired),
  });

  v1.get('/organizations/:organizationID/admins', {
    config: { operation: 'orgs.admins.list' },
    schema: {
      tags,
      security,
      params: OrgParams,
      querystring: Type.Object(PageQuery),
      summary: 'List the staff (users with an admin role) and their roles, by user ID',
      response: { 200: StaffPage, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await staff.page(req.params.organizationID, req.query.startid, limit);
      return { Admins: page.staff, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  v1.post('/organizations/:organizationID/admins', {
    config: { operation: 'orgs.admins.invite' },
    schema: {
      tags,
      security,
      params: OrgParams,
      body: InviteBody,
      summary: 'Invite an e-mail address to the staff with roles: mails a single-use link (201)',
      response: { 201: StaffInvitation, ...errors(400, 401, 403, 404, 502) },
    },
    handler: async (req, reply) => {
      const { email, roles } = req.body;
      const invitation = await staffInvitations.invite(req.principal!, req.params.organizationID, email, roles);
      return reply.code(201).send(invitation);
    },
  });

  v1.get('/organizations/:organizationID/admins/invitations', {
    config: { operation: 'orgs.admins.invitations.list' },
    schema: {
      tags,
      security,
      params: OrgParams,
      querystring: Type.Object(PageQuery),
      summary: 'List the pending staff invitations by ID',
      response: { 200: StaffInvitationPage, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await staffInvitations.page(req.params.organizationID, req.query.startid, limit);
      return { Invitations: page.invitations, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  v1.delete('/organizations/:organizationID/admins/invitations/:invitationID', {
    config: { operation: 'orgs.admins.invitations.revoke' },
    schema: {
      tags,
      security,
      params: StaffInvitationParams,
      summary: 'Revoke a pending staff invitation: its link stops working',
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await staffInvitations.revoke(req.principal!, req.params.organizationID, req.params.invitationID);
      return reply.code(204).send(null);
    },
  });

  v1.put('/organizations/:organizationID/admins/:userID', {
    config: { operation: 'orgs.admins.update' },
    schema: {
      tags,
      security,
      params: StaffParams,
      body: RolesBody,
      summary: 'Set a staff member’s roles (the last Owner keeps Owner; nobody adds roles to themselves)',
      response: { 200: StaffMember, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) =>
      staff.setRoles(req.principal!, req.params.organizationID, req.params.userID, req.body.roles),
  });

  v1.delete('/organizations/:organizationID/admins/:userID', {
    config: { operation: 'orgs.admins.remove' },
    schema: {
      tags,
      security,
      params: StaffParams,
      summary: 'Remove a staff member: every role here goes, the account stays (never the last Owner)',
      response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
    },
    handler: async (req, reply) => {
      await staff.remove(req.principal!, req.params.organizationID, req.params.userID);
      return reply.code(204).send(null);
    },
  });

  v1.post('/user/staff-invitations/accept', {
    config: { operation: 'user.staff-invitations.accept' },
    schema: {
      tags,
      security,
      body: AcceptBody,
      summary: 'Accept a staff invitation with your own access token (the account of the invited address)',
      response: { 200: Joined, ...errors(400, 401, 403) },
    },
    handler: async (req) => staffInvitations.accept(req.principal!, req.body.token),
  });

  v1.post('/staff-invitations/register', {
    config: { operation: 'staff-invitations.register' },
    schema: {
      tags,
      body: RegisterBody,
      summary: 'Accept a staff invitation by creating an account for the invited address (201)',
      response: { 201: Joined, ...errors(400, 409) },
    },
    handler: async (req, reply) => reply.code(201).send(await staffInvitations.register(req.body.token, req.body)),
  });
};

/**
 * Registers the staff routes; mount at the root (they add `{base}` = `/v1` themselves).
 * @param opts - the staff services and `ASSENT_PUBLIC_URL` (for the page links).
 */
export const staffRoutes: FastifyPluginAsyncTypebox<StaffRouteDeps> = async (app, deps) => {
  await app.register(apiRoutes, { prefix: '/v1', ...deps });

  app.get('/staff-invitations/accept', {
    config: { operation: 'staff-invitation.page' },
    schema: { hide: true },
    handler: async (_req, reply) => reply.headers(STAFF_INVITATION_PAGE_HEADERS).send(STAFF_INVITATION_PAGE_HTML),
  });
};
