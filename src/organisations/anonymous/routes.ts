/**
 * Routes of anonymous users, under `{base}`:
 * - `POST /organizations/{organizationID}/users/anonymous` (docs/api.md "User management"): 201 with a bare User;
 * - `POST /organizations/{organizationID}/users/{userID}/upgrade`: the anonymous user becomes a full account.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { absentBodyAsEmpty } from '../../platform/http/body-keys.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { UpgradeBody, UserParams } from './schemas.js';
import type { AnonymousService } from './service.js';

const tags = ['users'];
const security = [{ bearer: [] }];

/** @param opts.anonymous - the anonymous-user service. */
export const anonymousRoutes: FastifyPluginAsyncTypebox<{ anonymous: AnonymousService }> = async (
  app,
  { anonymous },
) => {
  app.post('/organizations/:organizationID/users/anonymous', {
    config: { operation: 'users.anonymous.create' },
    schema: {
      tags,
      security,
      summary:
        'Add an anonymous user: no password, no e-mail; subscribed, ' +
        'with a consent record the organisation’s API key can manage',
      params: OrgParams,
      body: Type.Object({}),
      response: { 201: Type.Ref('User'), ...errors(400, 401, 403, 404, 429) },
    },
    // docs/api.md "User management": no body; the SDK may also send `{}`.
    preValidation: absentBodyAsEmpty,
    handler: async (req, reply) => reply.code(201).send(await anonymous.create(req.params.organizationID)),
  });

  app.post('/organizations/:organizationID/users/:userID/upgrade', {
    config: { operation: 'users.anonymous.upgrade' },
    schema: {
      tags,
      security,
      summary: 'Upgrade an anonymous user to a full account, keeping its ID, consent records and history',
      params: UserParams,
      body: UpgradeBody,
      response: { 200: Type.Ref('User'), ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req) => anonymous.upgrade(req.params.organizationID, req.params.userID, req.body),
  });
};
