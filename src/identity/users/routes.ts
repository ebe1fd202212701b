/**
 * The signed-in user's own record: `GET {base}/user` and `PATCH {base}/user` (Name, Phone and
 * the device-notification Client).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InvalidRequest } from '../../platform/core/errors.js';
import { errors } from '../../platform/http/schemas.js';
import { clientTypeOf } from './client-type.js';
import { ProfilePatch, UserResponse } from './schemas.js';
import type { UserService } from './service.js';

/**
 * @param opts.users - the user service.
 */
export const userRoutes: FastifyPluginAsyncTypebox<{ users: UserService }> = async (app, { users }) => {
  app.get('/user', {
    config: { operation: 'user.read' },
    schema: {
      tags: ['users'],
      summary: 'The signed-in user',
      security: [{ bearer: [] }],
      response: { 200: UserResponse, ...errors(401) },
    },
    handler: async (req) => ({ User: await users.me(req.principal!.userId) }),
  });

  app.patch('/user', {
    config: { operation: 'user.update' },
    schema: {
      tags: ['users'],
      summary: 'Change the signed-in user’s Name, Phone or Client',
      security: [{ bearer: [] }],
      body: ProfilePatch,
      response: { 200: UserResponse, ...errors(400, 401) },
    },
    handler: async (req) => {
      const { client, ...rest } = req.body;
      if (!client) return { User: await users.updateProfile(req.principal!.userId, rest) };
      const type = clientTypeOf(client.type);
      if (type === null) throw new InvalidRequest('client.type must be 0-100, "ios" or "android"');
      return {
        User: await users.updateProfile(req.principal!.userId, { ...rest, client: { token: client.token, type } }),
      };
    },
  });
};
