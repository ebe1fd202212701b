/**
 * Routes of docs/api.md "Identity management" logins, token refresh and logout. Paths, under `{base}` = `/v1`:
 * - `POST /v1.1/users/login` (also at the host root), `POST /users/login` (old), `POST /users/admin/login`;
 * - `POST /users/token` (alias `POST /user/token`, docs/api.md);
 * - `POST /users/logout`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import { deviceOf } from './device.js';
import { Credentials, RefreshBody } from './schemas.js';
import type { IdentityService } from './service.js';

const oauth = (operation: string) => ({ operation, oauth: true }) as const;

/**
 * The v1.1 login alone, mounted twice: under `{base}` and at the host root (docs/api.md "Path aliases").
 * @param opts.identity - the identity service.
 */
export const loginV11Routes: FastifyPluginAsyncTypebox<{ identity: IdentityService }> = async (app, { identity }) => {
  app.post('/v1.1/users/login', {
    config: oauth('users.login'),
    schema: {
      tags: ['identity'],
      summary: 'Login as user (returns User and Token)',
      body: Credentials,
      response: { 200: Type.Ref('LoginResponse'), ...errors(400, 401, 429) },
    },
    handler: (req) => identity.login(req.body, deviceOf(req), 'login'),
  });
};

/**
 * Logins, refresh and logout under `{base}`.
 * @param opts.identity - the identity service.
 */
export const identityRoutes: FastifyPluginAsyncTypebox<{ identity: IdentityService }> = async (app, { identity }) => {
  app.post('/users/login', {
    config: oauth('users.login.old'),
    schema: {
      tags: ['identity'],
      summary: 'Login as user (old; returns Token only)',
      body: Credentials,
      response: { 200: Type.Ref('Token'), ...errors(400, 401, 429) },
    },
    handler: async (req) => (await identity.login(req.body, deviceOf(req), 'token')).Token,
  });

  app.post('/users/admin/login', {
    config: oauth('users.admin.login'),
    schema: {
      tags: ['identity'],
      summary: 'Login as organisation admin',
      body: Credentials,
      response: { 200: Type.Ref('LoginResponse'), ...errors(400, 401, 403, 429) },
    },
    handler: (req) => identity.login(req.body, deviceOf(req), 'admin'),
  });

  for (const url of ['/users/token', '/user/token']) {
    app.post(url, {
      config: oauth('users.token.refresh'),
      schema: {
        tags: ['identity'],
        summary: 'Refresh access token (rotates the refresh token; reuse revokes the session)',
        body: RefreshBody,
        response: { 200: Type.Ref('Token'), ...errors(400) },
      },
      handler: (req) => identity.refresh(req.body),
    });
  }

  app.post('/user/apikey/revoke', {
    config: { operation: 'user.apikey.revoke' },
    schema: {
      tags: ['identity'],
      summary: 'Revoke the signed-in user’s API keys (a new one is issued on the next login or GET /user)',
      security: [{ bearer: [] }],
      response: { 204: Type.Null(), ...errors(401) },
    },
    handler: async (req, reply) => {
      await identity.revokeApiKeys(req.principal!.userId);
      return reply.code(204).send(null);
    },
  });

  app.post('/users/logout', {
    config: oauth('users.logout'),
    schema: {
      tags: ['identity'],
      summary: 'Logout user: ends the session of the refresh token',
      security: [{ bearer: [] }],
      body: RefreshBody,
      response: { 204: Type.Null(), ...errors(400, 401) },
    },
    handler: async (req, reply) => {
      await identity.logout(req.principal!, req.body);
      return reply.code(204).send(null);
    },
  });
};
