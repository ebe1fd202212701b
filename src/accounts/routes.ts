/**
 * Route of account deletion, under `{base}`: `POST /users/unregister`
 * (docs/decisions/0012-account-deletion.md; GDPR Art. 17).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../http/auth.js';
import { errors } from '../http/schemas.js';
import type { AccountService } from './service.js';

/** @param opts.accounts - the account service. */
export const accountRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountService }> = async (app, { accounts }) => {
  app.post('/users/unregister', {
    config: { operation: 'users.unregister' },
    schema: {
      tags: ['users'],
      security: [{ bearer: [] }],
      summary:
        'Delete the signed-in user’s account: personal data, image, password, sessions and API keys; the consent ' +
        'history is kept under a pseudonym',
      response: { 204: Type.Null(), ...errors(401, 404) },
    },
    handler: async (req, reply) => {
      await accounts.delete((req.principal as Principal).userId);
      return reply.code(204).send(null);
    },
  });
};
