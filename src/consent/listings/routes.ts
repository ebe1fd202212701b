/**
 * Routes of the consented-user pages (docs/api.md "Permissions and consents"), under `{base}`:
 * - `GET /organizations/{organizationID}/purposes/{purposeID}/attributes/{attributeID}/consented/users`
 * - `GET /organizations/{organizationID}/purposes/{purposeID}/consented/users`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PageQuery, pageLimit, pageLinks } from '../../platform/http/pagination.js';
import { errors } from '../../platform/http/schemas.js';
import { AttributeParams, Page, PurposeParams } from './schemas.js';
import type { ListingService } from './service.js';

const tags = ['consented users'];
const security = [{ bearer: [] }];

/** @param opts - the listing service and the public URL. */
export const listingRoutes: FastifyPluginAsyncTypebox<{ listings: ListingService; publicUrl: string }> = async (
  app,
  { listings, publicUrl },
) => {
  app.get('/organizations/:organizationID/purposes/:purposeID/attributes/:attributeID/consented/users', {
    config: { operation: 'consented.attribute.users' },
    schema: {
      tags,
      security,
      summary: 'Users consenting to an attribute of a purpose, by user ID',
      params: AttributeParams,
      querystring: Type.Object(PageQuery),
      response: { 200: Page, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await listings.page(
        req.params.organizationID,
        req.params.purposeID,
        req.params.attributeID,
        req.query.startid,
        limit,
      );
      return { Users: page.users, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });

  app.get('/organizations/:organizationID/purposes/:purposeID/consented/users', {
    config: { operation: 'consented.purpose.users' },
    schema: {
      tags,
      security,
      summary: 'Users consenting to at least one attribute of a purpose, by user ID',
      params: PurposeParams,
      querystring: Type.Object(PageQuery),
      response: { 200: Page, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => {
      const limit = pageLimit(req.query.limit);
      const page = await listings.page(
        req.params.organizationID,
        req.params.purposeID,
        undefined,
        req.query.startid,
        limit,
      );
      return { Users: page.users, Links: pageLinks(publicUrl, req.url, limit, page.next) };
    },
  });
};
