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

/** A UTC day as the form's date fields send it. */
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The form's days as the API's instants: `from` at its day's start, `to` at the next day's start (so that the day is
 * included), both UTC; instants and empty fields pass unchanged, and anything else is left for `auditFilter` to refuse.
 */
function dayRange<Q extends { from?: string; to?: string }>(query: Q): Q {
  const next = (day: string) => {
    const start = Date.parse(`${day}T00:00:00Z`);
    return Number.isNaN(start) ? day : new Date(start + 86_400_000).toISOString();
  };
  const from = query.from && DAY.test(query.from) ? `${query.from}T00:00:00Z` : query.from;
  const to = query.to && DAY.test(query.to) ? next(query.to) : query.to;
  return { ...query, from, to };
}

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
    handler: (req, reply) => sendAuditExport(reply, deps.auditLog, req.params.organizationID, dayRange(req.query)),
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
      const { action, actor, from, to } = req.query;
      const [org, page, choices] = await Promise.all([
        deps.purposes.organisation(orgId),
        deps.auditLog.page(orgId, req.query.startid || undefined, AUDIT_PAGE, auditFilter(dayRange(req.query))),
        deps.auditLog.choices(orgId),
      ]);
      const session = req.webSession as WebSession;
      const filters = { action, actor, from, to };
      const csrfToken = session.csrfToken;
      return sendPage(
        reply,
        AuditPage({ orgId, orgName: org.Name, roles: req.webRoles, csrfToken, page, filters, choices }),
      );
    },
  });
};
