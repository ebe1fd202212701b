/**
 * Routes of the organisation audit log (docs/audit.md), under `{base}`:
 * - `GET /organizations/{organizationID}/audit-log`: entries, newest first, filtered and paged;
 * - `GET /organizations/{organizationID}/audit-log/verify`: the chain recomputed from its first entry.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Links, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { AuditEntryBody, AuditQuery, AuditVerifyBody } from './schemas.js';
import { type AuditLogService, type AuditRow, auditFilter } from './service.js';

/** Options of the audit routes. */
export interface AuditRouteOptions {
  auditLog: AuditLogService;
  /** `ASSENT_PUBLIC_URL`, for the page links. */
  publicUrl: string;
}

/**
 * An entry as the API shows it.
 * @param e - a sealed entry (`AuditLogService.page` seals before it reads).
 */
export function presentAuditEntry(e: AuditRow): AuditEntryBody {
  return {
    ID: e.id,
    Seq: e.seq ?? 0,
    At: e.at.toISOString(),
    Action: e.action,
    Source: e.source,
    ActorUserID: e.actorUserId ?? '',
    ActorAPIKeyID: e.actorApiKeyId ?? '',
    ActorName: e.actorName,
    ActorEmail: e.actorEmail,
    TargetType: e.targetType,
    TargetID: e.targetId,
    Changes: e.changes as Record<string, unknown>,
    Detail: e.detail as Record<string, unknown>,
    RequestID: e.requestId,
    ClientIP: e.clientIp,
    Link: e.link?.toString('hex') ?? '',
  };
}

/** @param opts - the audit log and the public URL. */
export const auditRoutes: FastifyPluginAsyncTypebox<AuditRouteOptions> = async (app, { auditLog, publicUrl }) => {
  app.get('/organizations/:organizationID/audit-log', {
    config: { operation: 'orgs.audit-log.read' },
    schema: {
      tags: ['organisations'],
      security: [{ bearer: [] }],
      summary: 'The organisation audit log, newest first',
      description:
        'Filters: `action` (exact, or a prefix ending in a dot), `actor` (user ID or e-mail), `target` (object ID), ' +
        '`from`/`to` (RFC 3339); `Links.Next` keeps them.',
      params: OrgParams,
      querystring: AuditQuery,
      response: { 200: Type.Object({ Entries: Type.Array(AuditEntryBody), Links }), ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const filter = auditFilter(req.query);
      const page = await auditLog.page(req.params.organizationID, req.query.startid, limit, filter);
      return { Entries: page.items.map(presentAuditEntry), Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  app.get('/organizations/:organizationID/audit-log/verify', {
    config: { operation: 'orgs.audit-log.verify' },
    schema: {
      tags: ['organisations'],
      security: [{ bearer: [] }],
      summary: "Recomputes the organisation audit log's hash chain and names the first entry that does not hold",
      params: OrgParams,
      response: { 200: AuditVerifyBody, ...errors(401, 403, 404) },
    },
    handler: (req) => auditLog.verify(req.params.organizationID),
  });
};
