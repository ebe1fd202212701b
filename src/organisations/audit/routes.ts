/**
 * Routes of the organisation audit log (docs/audit.md), under `{base}`:
 * - `GET /organizations/{organizationID}/audit-log`: entries, newest first, filtered and paged;
 * - `GET /organizations/{organizationID}/audit-log/export`: the filtered entries as CSV or JSON lines, streamed;
 * - `GET /organizations/{organizationID}/audit-log/verify`: the chain recomputed from its first entry.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Links, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { sendAuditExport } from './export.js';
import { presentAuditEntry } from './present.js';
import { AuditEntryBody, AuditExportQuery, AuditQuery, AuditVerifyBody } from './schemas.js';
import { type AuditLogService, auditFilter } from './service.js';

/** Options of the audit routes. */
export interface AuditRouteOptions {
  auditLog: AuditLogService;
  /** `ASSENT_PUBLIC_URL`, for the page links. */
  publicUrl: string;
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

  app.get('/organizations/:organizationID/audit-log/export', {
    config: { operation: 'orgs.audit-log.export' },
    schema: {
      tags: ['organisations'],
      security: [{ bearer: [] }],
      summary: 'The organisation audit log as a file: the filtered entries, oldest first, as CSV or JSON lines',
      description:
        'The filters of the audit log (no paging). Streamed as an attachment while the entries are read 1,000 at a ' +
        'time; a database failure after the answer began cuts the file short.',
      params: OrgParams,
      querystring: AuditExportQuery,
      response: {
        200: Type.Unknown({ description: 'text/csv or application/jsonl (docs/audit.md "Export")' }),
        ...errors(400, 401, 403, 404),
      },
    },
    handler: (req, reply) => sendAuditExport(reply, auditLog, req.params.organizationID, req.query),
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
