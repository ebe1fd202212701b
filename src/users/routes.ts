/**
 * The signed-in user's own record: `GET {base}/user` and `PATCH {base}/user` (Name, Phone and
 * the device-notification Client).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../http/schemas.js';
import type { UserService } from './service.js';

const UserResponse = Type.Object({ User: Type.Ref('User') });

const ProfilePatch = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  phone: Type.Optional(Type.String({ maxLength: 40 })),
  client: Type.Optional(
    Type.Object({
      token: Type.String({ maxLength: 4096, description: 'device notification token' }),
      type: Type.Integer({ minimum: 0, maximum: 100, description: 'device type' }),
    }),
  ),
});

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
    handler: async (req) => ({ User: await users.updateProfile(req.principal!.userId, req.body) }),
  });
};
