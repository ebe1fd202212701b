/**
 * Organisation routes under `{base}`:
 * - `GET /organizations/roles`: the admin roles an organisation can grant;
 * - `GET /organizations/{organizationID}/audit-log`: the organisation audit log (`audit/service.ts`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ROLES } from '../../identity/index.js';
import { Links, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import type { AuditLogService } from '../audit/service.js';
import { AuditEntry, AuditQuery, RolesResponse } from './schemas.js';

/** Options of the organisation routes. */
export interface OrgRouteOptions {
  auditLog: AuditLogService;
  /** `ASSENT_PUBLIC_URL`, for the page links. */
  publicUrl: string;
}

/** @param opts - the audit log and the public URL. */
export const orgRoutes: FastifyPluginAsyncTypebox<OrgRouteOptions> = async (app, { auditLog, publicUrl }) => {
  app.get('/organizations/roles', {
    config: { operation: 'organizations.roles.list' },
    schema: {
      tags: ['organisations'],
      summary: 'List admin roles (1 Admin, 2 Dpo, 3 Developer, 4 Owner)',
      security: [{ bearer: [] }],
      response: { 200: RolesResponse, ...errors(401) },
    },
    handler: async () => ({ Roles: [...ROLES] }),
  });

  app.get('/organizations/:organizationID/audit-log', {
    config: { operation: 'orgs.audit-log.read' },
    schema: {
      tags: ['organisations'],
      security: [{ bearer: [] }],
      summary: 'The organisation audit log, newest first',
      description: '`action` and `actor` narrow it to one action and/or one acting user; `Links.Next` keeps them.',
      params: OrgParams,
      querystring: AuditQuery,
      response: { 200: Type.Object({ Entries: Type.Array(AuditEntry), Links }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const { action, actor } = req.query;
      const page = await auditLog.page(req.params.organizationID, req.query.startid, limit, {
        action: action || undefined,
        actorUserId: actor || undefined,
      });
      const Entries = page.items.map((e) => ({
        ID: e.id,
        Action: e.action,
        ActorUserID: e.actorUserId ?? '',
        ActorAPIKeyID: e.actorApiKeyId ?? '',
        Detail: e.detail as Record<string, unknown>,
        At: e.at.toISOString(),
      }));
      return { Entries, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });
};
