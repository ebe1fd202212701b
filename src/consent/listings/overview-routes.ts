/**
 * Routes of the organisation's consent overview and trend (docs/consents.md "Overview and trend"), under `{base}`:
 * - `GET /organizations/{organizationID}/consents/overview`
 * - `GET /organizations/{organizationID}/consents/trend?days=90&purposeid=<optional>`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { OverviewBody, TrendBody } from '../records/schemas.js';
import { TrendQuery } from './schemas.js';
import type { ListingService } from './service.js';

const tags = ['consented users'];
const security = [{ bearer: [] }];

/** @param opts - the listing service. */
export const overviewRoutes: FastifyPluginAsyncTypebox<{ listings: ListingService }> = async (app, { listings }) => {
  app.get('/organizations/:organizationID/consents/overview', {
    config: { operation: 'consents.overview' },
    schema: {
      tags,
      security,
      summary: 'Per purpose and data attribute, how many subscribed individuals Allow, Disallow, AskMe or undecided',
      description:
        'Counts at one instant over the live purposes and attributes and the individuals subscribed now; an AskMe ' +
        'whose days ran out counts as Disallow, as the consents API reads it. `Consented` matches the attribute’s ' +
        'consented-users page.',
      params: OrgParams,
      response: { 200: OverviewBody, ...errors(401, 403, 404) },
    },
    handler: (req) => listings.overview(req.principal as Principal, req.params.organizationID),
  });

  app.get('/organizations/:organizationID/consents/trend', {
    config: { operation: 'consents.trend' },
    schema: {
      tags,
      security,
      summary: 'Per UTC day, the consent changes to each value and the totals at the day’s end',
      description:
        'From the consent history, over the individuals subscribed now and the live purposes and attributes; ' +
        'the last day is today, whose totals are those of the overview.',
      params: OrgParams,
      querystring: TrendQuery,
      response: { 200: TrendBody, ...errors(400, 401, 403, 404) },
    },
    handler: (req) =>
      listings.trend(req.principal as Principal, req.params.organizationID, {
        days: req.query.days,
        purposeId: req.query.purposeid,
      }),
  });
};
