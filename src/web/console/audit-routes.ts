/**
 * Routes of the console's Audit log page (docs/web.md "Console"): `GET /console/{organizationID}/audit/export` (the
 * filtered entries as a file, as the API's export) and `GET /console/{organizationID}/audit`
 * with the API's query (`startid`, `action`, `actor`; src/organisations/audit/schemas.ts `AuditQuery`): the
 * organisation's audit log, newest first, keyset-paged, filtered by action and by acting user.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PurposeService } from '../../consent/index.js';
import type { WebSession } from '../../identity/index.js';
import {
  AuditExportQuery,
  type AuditLogService,
  AuditQuery,
  auditFilter,
  sendAuditExport,
} from '../../organisations/index.js';
import { sendPage } from '../shared/html.js';
import { AuditPage } from './audit.js';
import { Org } from './schemas.js';

/** What the Audit log page calls. */
export interface AuditDeps {
  purposes: PurposeService;
  auditLog: AuditLogService;
}

/** Entries per page (count). */
const AUDIT_PAGE = 25;

/** @param opts - the services. */
export const auditRoutes: FastifyPluginAsyncTypebox<AuditDeps> = async (app, deps) => {
  app.get('/console/:organizationID/audit/export', {
    config: {
      operation: 'web.console.audit.export',
      web: 'signed-in',
      signIn: '/console/sign-in',
      api: 'orgs.audit-log.export',
    },
    schema: { params: Org, querystring: AuditExportQuery },
    handler: (req, reply) => sendAuditExport(reply, deps.auditLog, req.params.organizationID, req.query),
  });

  app.get('/console/:organizationID/audit', {
    config: {
      operation: 'web.console.audit',
      web: 'signed-in',
      signIn: '/console/sign-in',
      api: 'orgs.audit-log.read',
    },
    schema: {
      params: Org,
      // The API's query and limits; an empty form field means no filter, as in the API.
      querystring: AuditQuery,
    },
    handler: async (req, reply) => {
      const orgId = req.params.organizationID;
      const action = req.query.action || undefined;
      const actor = req.query.actor || undefined;
      const [org, page] = await Promise.all([
        deps.purposes.organisation(orgId),
        deps.auditLog.page(orgId, req.query.startid || undefined, AUDIT_PAGE, auditFilter(req.query)),
      ]);
      const session = req.webSession as WebSession;
      return sendPage(
        reply,
        AuditPage({ orgId, orgName: org.Name, roles: req.webRoles, csrfToken: session.csrfToken, page, action, actor }),
      );
    },
  });
};
