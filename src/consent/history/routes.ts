/**
 * Routes of the consent history (docs/decisions/0005-consent-evidence.md "Evidence"), under `{base}`:
 * - `GET /organizations/{organizationID}/users/{userID}/consents/history` (newest first, paginated)
 * - `GET /organizations/{organizationID}/consents/history?at=<RFC 3339>&userid=<ID>`
 * - `GET /organizations/{organizationID}/consents/history/verify`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { Links, PageQuery, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors } from '../../platform/http/schemas.js';
import { ConsentEvent, ConsentsAndPurpose } from '../records/schemas.js';
import type { ConsentService } from '../records/service.js';
import { type HistoryService, parseInstant } from './history.js';

const OrgParams = Type.Object({ organizationID: Type.String() });
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
      params: Type.Object({ organizationID: Type.String(), userID: Type.String() }),
      querystring: Type.Object({
        ...PageQuery,
        purposeid: Type.Optional(Type.String({ maxLength: 100 })),
        from: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339, inclusive' })),
        to: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339, inclusive' })),
      }),
      response: { 200: Type.Object({ Events: Type.Array(ConsentEvent), Links }), ...errors(400, 401, 403, 404) },
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
      querystring: Type.Object({
        at: Type.String({ maxLength: 40, description: 'RFC 3339' }),
        userid: Type.String({ maxLength: 100 }),
      }),
      response: {
        200: Type.Object({
          ID: Type.String(),
          OrgID: Type.String(),
          UserID: Type.String(),
          At: Type.String(),
          ConsentsAndPurposes: Type.Array(ConsentsAndPurpose),
        }),
        ...errors(400, 401, 403, 404),
      },
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
      response: {
        200: Type.Object({
          Valid: Type.Boolean(),
          Events: Type.Integer(),
          FirstBrokenSeq: Type.Union([Type.Integer(), Type.Null()]),
          Reason: Type.String(),
        }),
        ...errors(401, 403, 404),
      },
    },
    handler: (req) => history.verify(req.params.organizationID),
  });
};
