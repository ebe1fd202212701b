/**
 * Routes of password changes (docs/api.md "User management"; docs/api.md "Path aliases"):
 * - `POST {base}/user/password/reset` (alias `PUT`): the signed-in user sets a new password;
 * - `PUT {base}/user/password/forgot`: asks for a reset link by e-mail (always 200 `{"msg": …}`, docs/api.md);
 * - `POST {base}/user/password/forgot/complete`: sets the password with the link's token;
 * - `GET /password/reset`: the HTML page of the link (at the root, beside `{base}`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import { RESET_PAGE_HEADERS, RESET_PAGE_HTML } from './page.js';
import { CompleteBody, ForgotAnswer, ForgotBody, ResetBody } from './schemas.js';
import { FORGOT_ANSWER, type PasswordService } from './service.js';

const tags = ['users'];
const NoBody = Type.Null({ description: 'no body' });

/** docs/api.md "User management": "200, no body". `undefined` skips serialisation, so the body is empty rather than `null`. */
const noBody = (reply: FastifyReply) => reply.code(200).send(undefined as never);

/** The routes under `{base}`. */
const apiRoutes: FastifyPluginAsyncTypebox<{ passwords: PasswordService }> = async (v1, { passwords }) => {
  for (const method of ['POST', 'PUT'] as const) {
    v1.route({
      method,
      url: '/user/password/reset',
      config: { operation: 'user.password.reset' },
      schema: {
        tags,
        summary:
          `Reset user password using the current password${method === 'PUT' ? ' (alias of the POST)' : ''}: ` +
          'ends every other session of the user and mails a notice',
        security: [{ bearer: [] }],
        body: ResetBody,
        response: { 200: NoBody, ...errors(400, 401, 429) },
      },
      handler: async (req, reply) => {
        await passwords.changeWithSession(req.principal!, req.body, req.ip, req.log);
        return noBody(reply);
      },
    });
  }

  v1.put('/user/password/forgot', {
    config: { operation: 'user.password.forgot' },
    schema: {
      tags,
      summary:
        'Forgot password: mails a single-use reset link (30 minutes) to the user’s address. ' +
        'Always 200 {"msg": …}, the same whether or not the user exists',
      body: ForgotBody,
      response: { 200: ForgotAnswer, ...errors(400, 429) },
    },
    handler: async (req) => {
      await passwords.requestReset(req.body.username, req.ip, req.log);
      return { msg: FORGOT_ANSWER };
    },
  });

  v1.post('/user/password/forgot/complete', {
    config: { operation: 'user.password.forgot.complete' },
    schema: {
      tags,
      summary:
        'Complete a forgotten-password reset with the token of the mailed link: ' +
        'sets the password, ends every session of the user',
      body: CompleteBody,
      response: { 200: NoBody, ...errors(400) },
    },
    handler: async (req, reply) => {
      await passwords.completeReset(req.body.token, req.body.password, req.ip, req.log);
      return noBody(reply);
    },
  });
};

/**
 * Registers the password routes; mount at the root (they add `{base}` = `/v1` themselves).
 * @param opts.passwords - the password service.
 */
export const passwordRoutes: FastifyPluginAsyncTypebox<{ passwords: PasswordService }> = async (app, { passwords }) => {
  // Mails still in flight at shutdown are given a few seconds to go out.
  app.addHook('onClose', () => passwords.drain());
  await app.register(apiRoutes, { prefix: '/v1', passwords });

  app.get('/password/reset', {
    config: { operation: 'password.reset.page' },
    schema: { hide: true },
    handler: async (_req, reply) => reply.headers(RESET_PAGE_HEADERS).send(RESET_PAGE_HTML),
  });
};
