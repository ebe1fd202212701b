/** `GET {base}/organizations/roles`: the admin roles an organisation can grant. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../http/schemas.js';
import { ROLES } from '../users/roles.js';

const RolesResponse = Type.Object({ Roles: Type.Array(Type.Object({ ID: Type.Integer(), Role: Type.String() })) });

/** Organisation routes of the foundation. */
export const orgRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/organizations/roles', {
    config: { operation: 'organizations.roles.list' },
    schema: { tags: ['organisations'], summary: 'List admin roles (1 Admin, 2 Dpo, 3 Developer, 4 Owner)', security: [{ bearer: [] }], response: { 200: RolesResponse, ...errors(401) } },
    handler: async () => ({ Roles: [...ROLES] }),
  });
};
