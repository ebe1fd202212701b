/**
 * Organisation routes under `{base}`:
 * - `GET /organizations/roles`: the admin roles an organisation can grant.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ROLES } from '../../identity/index.js';
import { errors } from '../../platform/http/schemas.js';
import { RolesResponse } from './schemas.js';

/** The routes of the organisations' admin roles. */
export const orgRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/organizations/roles', {
    config: { operation: 'organizations.roles.list' },
    schema: {
      tags: ['organisations'],
      summary: 'List admin roles (1 Admin, 2 Dpo, 3 Developer, 4 Owner)',
      security: [{ bearer: [] }],
      response: { 200: RolesResponse, ...errors(401) },
    },
    handler: async () => ({ Roles: [...ROLES] }),
  });
};
