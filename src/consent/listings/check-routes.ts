/**
 * Route of the bulk consent check (docs/api.md "Bulk consent check"), under `{base}`:
 * - `POST /organizations/{organizationID}/consents/check`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../platform/core/principal.js';
import { replyJsonBytes } from '../../platform/http/json-bytes.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import type { ConsentCheckService } from './check.js';
import { CheckBody, CheckInput, MAX_CHECK_USERS } from './schemas.js';

/** @param opts - the check service. */
export const checkRoutes: FastifyPluginAsyncTypebox<{ checks: ConsentCheckService }> = async (app, { checks }) => {
  app.post('/organizations/:organizationID/consents/check', {
    config: { operation: 'consents.check' },
    schema: {
      tags: ['consented users'],
      security: [{ bearer: [] }],
      summary: `The consents in force now of up to ${MAX_CHECK_USERS} individuals to the attributes of one purpose`,
      description:
        'Per individual, in the order sent: whether they are subscribed (if not, no values) and, per attribute, the ' +
        'value in force at `ReadAt` as the consents API reads it (defaults applied; an AskMe whose days ran out is ' +
        'Disallow) and whether it counts. `Seq`: every consent-history event numbered up to it is reflected. ' +
        'Changes nothing.',
      params: OrgParams,
      body: CheckInput,
      response: { 200: CheckBody, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req, reply) => {
      const answer = await checks.check(req.principal as Principal, req.params.organizationID, req.body);
      // Up to 1,000 individuals (about 350 KiB): JSON.stringify, sent as bytes (json-bytes.ts says why).
      return replyJsonBytes(reply).send(answer);
    },
  });
};
