/**
 * Operational endpoints at the host root: `GET /healthz` (liveness), `GET /readyz` (the database
 * answers) and `GET /.well-known/jwks.json` (RFC 7517 §5 key set of the token signing keys).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { KeyRing } from '../identity/index.js';
import type { Store } from '../platform/db/open.js';

const Status = Type.Object({ status: Type.String() });
const Jwks = Type.Object({
  keys: Type.Array(
    Type.Object({
      kty: Type.String(),
      crv: Type.String(),
      x: Type.String(),
      y: Type.String(),
      kid: Type.String(),
      alg: Type.String(),
      use: Type.String(),
    }),
  ),
});

/**
 * @param opts.store - the open store, pinged by `/readyz`.
 * @param opts.keys - the signing-key ring.
 */
export const healthRoutes: FastifyPluginAsyncTypebox<{ store: Store; keys: KeyRing }> = async (
  app,
  { store, keys },
) => {
  app.get('/healthz', {
    config: { operation: 'health.live' },
    schema: { tags: ['operations'], summary: 'Liveness', response: { 200: Status } },
    handler: async () => ({ status: 'ok' }),
  });

  app.get('/readyz', {
    config: { operation: 'health.ready' },
    schema: {
      tags: ['operations'],
      summary: 'Readiness: the database answers',
      response: { 200: Status, 503: Status },
    },
    handler: async (req, reply) => {
      try {
        await store.ping();
        return { status: 'ready' };
      } catch (err) {
        req.log.warn({ err }, 'database not ready');
        return reply.code(503).send({ status: 'database unavailable' });
      }
    },
  });

  app.get('/.well-known/jwks.json', {
    config: { operation: 'keys.jwks' },
    schema: { tags: ['operations'], summary: 'JSON Web Key Set of the token signing keys', response: { 200: Jwks } },
    handler: async (_req, reply) => {
      // Short, so that verifiers pick up a rotated key soon; they should also refetch on an unknown kid.
      reply.header('Cache-Control', 'public, max-age=60');
      return keys.jwks();
    },
  });
};
