/**
 * Routes of the console's consent overview (docs/web.md "Console"):
 * - `GET /console/{organizationID}/consents?days=&purposeid=` — counts and trend;
 * - `GET /console/{organizationID}/consents/users?purposeid=&attributeid=&startid=` — the consented users, paged.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ListingService, PurposeService } from '../../consent/index.js';
import { principalOf } from '../dashboard/views.js';
import { sendPage } from '../shared/html.js';
import { ConsentedUsersPage, OverviewPage } from './overview.js';
import { session, signedIn } from './routes.js';
import { ConsentedUsersQuery, Org } from './schemas.js';

/** What the overview pages call. */
export interface ConsoleOverviewDeps {
  listings: ListingService;
  purposes: PurposeService;
}

/** Consented users per page (count). */
const USERS_PAGE = 25;

/** @param opts - the services. */
export const consoleOverviewRoutes: FastifyPluginAsyncTypebox<ConsoleOverviewDeps> = async (app, deps) => {
  app.get('/console/:organizationID/consents', {
    config: { operation: 'web.console.consents', ...signedIn, api: 'consents.overview' },
    schema: {
      params: Org,
      querystring: Type.Object({ days: Type.Optional(Type.String({ maxLength: 4 })) }),
    },
    handler: async (req, reply) => {
      const s = session(req);
      const orgId = req.params.organizationID;
      const principal = principalOf(s);
      const [overview, trend, org] = await Promise.all([
        deps.listings.overview(principal, orgId),
        deps.listings.trend(principal, orgId, { days: req.query.days ?? '90' }),
        deps.purposes.organisation(orgId),
      ]);
      return sendPage(
        reply,
        OverviewPage({ overview, trend, orgName: org.Name, roles: req.webRoles, csrfToken: s.csrfToken }),
      );
    },
  });

  app.get('/console/:organizationID/consents/users', {
    config: { operation: 'web.console.consents.users', ...signedIn, api: 'consented.purpose.users' },
    schema: {
      params: Org,
      querystring: ConsentedUsersQuery,
    },
    handler: async (req, reply) => {
      const s = session(req);
      const orgId = req.params.organizationID;
      const { purposeid, attributeid, startid } = req.query;
      const [page, org] = await Promise.all([
        deps.listings.page(orgId, purposeid, attributeid, startid, USERS_PAGE),
        deps.purposes.organisation(orgId),
      ]);
      const purpose = org.Purposes.find((p) => p.ID === purposeid);
      const what = purpose ? purpose.Name : 'the purpose';
      const base = `/console/${orgId}/consents/users?purposeid=${encodeURIComponent(purposeid)}${attributeid ? `&attributeid=${encodeURIComponent(attributeid)}` : ''}`;
      return sendPage(
        reply,
        ConsentedUsersPage({
          orgId,
          orgName: org.Name,
          what: attributeid ? `an attribute of ${what}` : what,
          users: page.users,
          next: page.next,
          nextHref: (next) => `${base}&startid=${encodeURIComponent(next)}`,
          roles: req.webRoles,
          csrfToken: s.csrfToken,
        }),
      );
    },
  });
};
