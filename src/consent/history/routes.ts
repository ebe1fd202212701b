/**
 * Routes of the consent history (docs/decisions/0005-consent-evidence.md "Evidence"), under `{base}`:
 * - `GET /organizations/{organizationID}/users/{userID}/consents/history` (newest first, paginated)
 * - `GET /organizations/{organizationID}/consents/history?at=<RFC 3339>&userid=<ID>`
 * - `GET /organizations/{organizationID}/consents/history/verify`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../platform/core/principal.js';
import { pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { parseInstant } from '../../platform/util/instant.js';
import { UserParams } from '../records/schemas.js';
import type { ConsentService } from '../records/service.js';
import type { HistoryService } from './history.js';
import { AtQuery, HistoryPage, HistoryQuery, RecordAtBody, VerifyBody } from './schemas.js';

const tags = ['consent history'];
const security = [{ bearer: [] }];

/** @param opts - the consent and history services and the public URL. */
export const historyRoutes: FastifyPluginAsyncTypebox<{
  consents: ConsentService;
  history: HistoryService;
  publicUrl: string;
}> = async (app, { consents, history, publicUrl }) => {
  app.get('/organizations/:organizationID/users/:userID/consents/history', {
    config: { operation: 'consents.history.list' },
    schema: {
      tags,
      security,
      summary: 'An individual’s consent events, newest first',
      params: UserParams,
      querystring: HistoryQuery,
      response: { 200: HistoryPage, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const from = req.query.from === undefined ? undefined : parseInstant(req.query.from, 'from');
      const to = req.query.to === undefined ? undefined : parseInstant(req.query.to, 'to');
      const { record } = await consents.open(
        req.principal as Principal,
        { orgId: req.params.organizationID, userId: req.params.userID },
        'history',
      );
      const page = await history.page(
        record,
        { purposeId: req.query.purposeid, from, to, startId: req.query.startid },
        limit,
      );
      return { Events: page.events, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  app.get('/organizations/:organizationID/consents/history', {
    config: { operation: 'consents.history.at' },
    schema: {
      tags,
      security,
      summary: 'What an individual’s consent record was at an instant',
      params: OrgParams,
      querystring: AtQuery,
      response: { 200: RecordAtBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => {
      const at = parseInstant(req.query.at, 'at');
      const { record } = await consents.open(
        req.principal as Principal,
        { orgId: req.params.organizationID, userId: req.query.userid },
        'history',
      );
      return history.recordAt(record, at);
    },
  });

  app.get('/organizations/:organizationID/consents/history/verify', {
    config: { operation: 'consents.history.verify' },
    schema: {
      tags,
      security,
      summary: 'Recompute the organisation’s event chain and report the first broken link',
      params: OrgParams,
      response: { 200: VerifyBody, ...errors(401, 403, 404) },
    },
    handler: (req) => history.verify(req.params.organizationID),
  });
};
