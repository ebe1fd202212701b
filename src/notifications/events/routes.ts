/**
 * Route of the organisation's change feed (docs/events.md), under `{base}`:
 * - `GET /organizations/{organizationID}/events?after=&limit=&types=`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { replyJsonBytes } from '../../platform/http/json-bytes.js';
import { pageLinks } from '../../platform/http/pagination.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { FeedBody, FeedQuery } from './schemas.js';
import { type EventFeed, feedRequest } from './service.js';

/** @param opts.feed - the feed reader; opts.publicUrl - for the absolute `Links`. */
export const eventFeedRoutes: FastifyPluginAsyncTypebox<{ feed: EventFeed; publicUrl: string }> = async (
  app,
  { feed, publicUrl },
) => {
  app.get('/organizations/:organizationID/events', {
    config: { operation: 'events.feed' },
    schema: {
      tags: ['events'],
      security: [{ bearer: [] }],
      summary: 'The organisation’s change feed: CloudEvents 1.0 in sequence order, after a cursor (docs/events.md)',
      params: OrgParams,
      querystring: FeedQuery,
      response: { 200: FeedBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req, reply) => {
      const request = feedRequest(req.query);
      const page = await feed.page(req.params.organizationID, request);
      const links = pageLinks(publicUrl, req.url, request.limit, page.next, 'after');
      // A page is up to 1,000 events (about 1 MiB): JSON.stringify, sent as bytes (json-bytes.ts says why).
      return replyJsonBytes(reply).send({ Events: page.events, Links: links });
    },
  });
};
