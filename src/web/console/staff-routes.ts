/**
 * Routes of the console's Staff page (docs/staff.md; docs/web.md "Console"), at `{PUBLIC_URL}/console`:
 * - `GET /console/{organizationID}/staff`: the staff and, for an Owner, the pending invitations (`orgs.admins.list`);
 * - `POST …/staff/invite`: invites an address with roles (`orgs.admins.invite`);
 * - `POST …/staff/{userID}`: sets a member's roles (`orgs.admins.update`);
 * - `POST …/staff/{userID}/remove`: removes a member, only with the confirmation box ticked (`orgs.admins.remove`);
 * - `POST …/staff/invitations/{invitationID}/revoke`: revokes a pending invitation (`orgs.admins.invitations.revoke`);
 * - `POST …/staff/policy`: whether staff must use a second factor (`orgs.staff-policy.update`).
 * Each calls the service of the API's route, so its rules (the last Owner, nobody raising their own roles) are the
 * only ones; a refusal (400, 409) answers the page again with its status and the message by the form.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PurposeService } from '../../consent/index.js';
import type { StaffInvitations, StaffPolicies, StaffService } from '../../organisations/index.js';
import { AssentError } from '../../platform/core/errors.js';
import { httpStatusOf } from '../../platform/http/errors.js';
import { principalOf } from '../dashboard/views.js';
import { type FormRefusal, refusedForm } from '../shared/form-state.js';
import { seeOther, sendPage } from '../shared/html.js';
import { session, signedIn } from './routes.js';
import {
  Confirmed,
  Org,
  OrgStaffInvitation,
  OrgUser,
  StaffInviteForm,
  StaffPolicyForm,
  StaffQuery,
  StaffRolesForm,
} from './schemas.js';
import { allows } from './shell.js';
import { StaffPage, type StaffProps } from './staff.js';

/** What the Staff page calls: the services of the API's staff routes. */
export interface ConsoleStaffDeps {
  staff: { members: StaffService; invitations: StaffInvitations; policies: StaffPolicies };
  purposes: PurposeService;
}

const DONE: Record<string, string> = {
  invited: 'Invitation sent.',
  roles: 'Roles saved.',
  removed: 'Removed from the staff.',
  revoked: 'Invitation revoked.',
  policy: 'Staff policy saved.',
};
const PAGE = 100;

/** The page's props for a request (the first page of staff unless `startid` says otherwise). */
async function pageProps(deps: ConsoleStaffDeps, req: FastifyRequest, startid?: string) {
  const orgId = (req.params as { organizationID: string }).organizationID;
  const roles = req.webRoles;
  const [org, page, policy, invitations] = await Promise.all([
    deps.purposes.organisation(orgId),
    deps.staff.members.page(orgId, startid, PAGE),
    deps.staff.policies.read(orgId),
    allows(roles, 'orgs.admins.invitations.list')
      ? deps.staff.invitations.page(orgId, undefined, PAGE)
      : { invitations: [] },
  ]);
  return {
    orgId,
    orgName: org.Name,
    roles,
    userId: session(req).userId,
    csrfToken: session(req).csrfToken,
    staff: page.staff,
    next: page.next,
    invitations: invitations.invitations,
    factorRequired: policy.StaffMFARequired,
  } satisfies StaffProps;
}

/** The Staff page again with the refused form (`form(params)` names it), its message and status. */
function staffRefused(deps: ConsoleStaffDeps, form: (params: Record<string, string>) => string): FormRefusal {
  return async (req, reply, error) => {
    const refused = refusedForm(error, req.body);
    if (!refused) return null;
    const props = await pageProps(deps, req);
    const page = StaffPage({ ...props, refused: { ...refused, form: form(req.params as Record<string, string>) } });
    return sendPage(reply, page, error instanceof AssentError ? httpStatusOf(error) : 400);
  };
}

const back = (reply: FastifyReply, orgId: string, done: string) =>
  seeOther(reply, `/console/${orgId}/staff?done=${done}`, false);

/** @param deps - the services. */
export const consoleStaffRoutes: FastifyPluginAsyncTypebox<ConsoleStaffDeps> = async (app, deps) => {
  app.get('/console/:organizationID/staff', {
    config: { operation: 'web.console.staff', ...signedIn, api: 'orgs.admins.list' },
    schema: { params: Org, querystring: StaffQuery },
    handler: async (req, reply) => {
      const props = await pageProps(deps, req, req.query.startid);
      return sendPage(reply, StaffPage({ ...props, done: DONE[req.query.done ?? ''] }));
    },
  });

  app.post('/console/:organizationID/staff/invite', {
    config: {
      operation: 'web.console.staff.invite',
      ...signedIn,
      api: 'orgs.admins.invite',
      refused: staffRefused(deps, () => 'invite'),
    },
    schema: { params: Org, body: StaffInviteForm },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const roles = (req.body.roles ?? []).map(Number);
      await deps.staff.invitations.invite(principalOf(session(req)), orgId, req.body.email, roles);
      return back(reply, orgId, 'invited');
    },
  });

  app.post('/console/:organizationID/staff/:userID', {
    config: {
      operation: 'web.console.staff.update',
      ...signedIn,
      api: 'orgs.admins.update',
      refused: staffRefused(deps, (p) => `roles-${p.userID}`),
    },
    schema: { params: OrgUser, body: StaffRolesForm },
    handler: async (req, reply) => {
      const { organizationID: orgId, userID } = req.params;
      const roles = (req.body.roles ?? []).map(Number);
      await deps.staff.members.setRoles(principalOf(session(req)), orgId, userID, roles);
      return back(reply, orgId, 'roles');
    },
  });

  app.post('/console/:organizationID/staff/:userID/remove', {
    config: {
      operation: 'web.console.staff.remove',
      ...signedIn,
      api: 'orgs.admins.remove',
      refused: staffRefused(deps, (p) => `remove-${p.userID}`),
    },
    // The confirmation step: the box must be ticked, else the page again with a 400 and nothing changes.
    schema: { params: OrgUser, body: Confirmed },
    handler: async (req, reply) => {
      const { organizationID: orgId, userID } = req.params;
      await deps.staff.members.remove(principalOf(session(req)), orgId, userID);
      return back(reply, orgId, 'removed');
    },
  });

  app.post('/console/:organizationID/staff/policy', {
    config: { operation: 'web.console.staff.policy', ...signedIn, api: 'orgs.staff-policy.update' },
    schema: { params: Org, body: StaffPolicyForm },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      await deps.staff.policies.set(principalOf(session(req)), orgId, req.body.required === 'on');
      return back(reply, orgId, 'policy');
    },
  });

  app.post('/console/:organizationID/staff/invitations/:invitationID/revoke', {
    config: { operation: 'web.console.staff.revoke', ...signedIn, api: 'orgs.admins.invitations.revoke' },
    schema: { params: OrgStaffInvitation },
    handler: async (req, reply) => {
      const { organizationID: orgId, invitationID } = req.params;
      await deps.staff.invitations.revoke(principalOf(session(req)), orgId, invitationID);
      return back(reply, orgId, 'revoked');
    },
  });
};
