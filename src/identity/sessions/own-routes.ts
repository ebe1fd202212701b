/**
 * Routes of a person's own sessions (docs/security.md "Sessions"), under `{base}`:
 * - `GET /user/sessions`: the live sessions, last used first, the current one marked;
 * - `DELETE /user/sessions/{sessionID}`: ends one; `DELETE /user/sessions`: ends all but the current one.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../platform/http/schemas.js';
import type { OwnSessions } from './own.js';

const tags = ['identity'];
const security = [{ bearer: [] }];

const Session = Type.Object({
  ID: Type.String(),
  CreatedAt: Type.String({ format: 'date-time' }),
  LastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ClientID: Type.String(),
  Kind: Type.Union([Type.Literal('web'), Type.Literal('api')]),
  UserAgent: Type.String(),
  IPPrefix: Type.String({ description: 'the network it was opened from, /24 or /48' }),
  Current: Type.Boolean(),
});

/** The routes under `{base}`. */
export const ownSessionRoutes: FastifyPluginAsyncTypebox<{ ownSessions: OwnSessions }> = async (
  v1,
  { ownSessions },
) => {
  v1.get('/user/sessions', {
    config: { operation: 'user.sessions.list' },
    schema: {
      tags,
      security,
      summary: 'Your live sessions, last used first (at most 200)',
      response: { 200: Type.Object({ Sessions: Type.Array(Session) }), ...errors(401) },
    },
    handler: async (req) => ({ Sessions: await ownSessions.list(req.principal!) }),
  });

  v1.delete('/user/sessions/:sessionID', {
    config: { operation: 'user.sessions.end' },
    schema: {
      tags,
      security,
      params: Type.Object({ sessionID: Type.String() }),
      summary: 'End one of your sessions at once (your current one: a logout)',
      response: { 204: Type.Null(), ...errors(401, 404) },
    },
    handler: async (req, reply) => {
      await ownSessions.end(req.principal!, req.params.sessionID);
      return reply.code(204).send(null);
    },
  });

  v1.delete('/user/sessions', {
    config: { operation: 'user.sessions.end-others' },
    schema: {
      tags,
      security,
      summary: 'End every session of yours but this one',
      response: { 204: Type.Null(), ...errors(401) },
    },
    handler: async (req, reply) => {
      await ownSessions.endOthers(req.principal!);
      return reply.code(204).send(null);
    },
  });
};
