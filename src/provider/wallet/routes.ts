/**
 * The wallet's endpoints of an organisation's OpenID provider (docs/api.md "Authorization endpoint"; docs/wallet.md "The
 * verifier"; OpenID4VP 1.0 §5.10, §8.2), declared as static paths so that they win over the
 * provider's `/v3/service/extension/oidc/:organisationId/*` in Fastify's router:
 * - `GET  …/oid4vp/request/{requestId}`: the signed request object, once;
 * - `POST …/oid4vp/response`: the wallet's response (`direct_post` or `direct_post.jwt`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { InvalidRequest } from '../../platform/core/errors.js';
import { PresentationError } from './errors.js';
import type { WalletFlow } from './flow.js';
import {
  OAuthError,
  RequestObjectParams,
  VerifierParams,
  WalletResponseAnswer,
  WalletResponseBody,
} from './schemas.js';

const PREFIX = '/v3/service/extension/oidc/:organisationId/oid4vp';
const tags = ['wallet'];

/** The options of the routes: the verifier (`ctx.wallet`). */
export interface WalletRouteOptions {
  wallet: WalletFlow;
}

/** @param opts - the verifier. */
export const walletRoutes: FastifyPluginAsyncTypebox<WalletRouteOptions> = async (app, { wallet }) => {
  app.get(`${PREFIX}/request/:requestId`, {
    config: { operation: 'wallet.oid4vp.request', oauth: true },
    schema: {
      tags,
      summary: 'The signed request object of a wallet transaction (RFC 9101), served once',
      params: RequestObjectParams,
      response: { 200: Type.String(), 404: OAuthError, 410: OAuthError, 429: OAuthError },
    },
    handler: async (req, reply) => {
      const jwt = await wallet.requestObject(req.params.organisationId, req.params.requestId, req.ip);
      return reply.header('cache-control', 'no-store').type('application/oauth-authz-req+jwt').send(jwt);
    },
  });
  app.post(`${PREFIX}/response`, {
    config: { operation: 'wallet.oid4vp.response', oauth: true },
    bodyLimit: 256 * 1024,
    schema: {
      tags,
      summary: 'A wallet’s authorization response (OpenID4VP 1.0 §8.2, §8.3): verified, then the same-device redirect',
      params: VerifierParams,
      body: WalletResponseBody,
      response: {
        200: WalletResponseAnswer,
        400: OAuthError,
        429: OAuthError,
      },
    },
    handler: async (req, reply) => {
      try {
        const answer = await wallet.receive(
          req.params.organisationId,
          (req.body ?? {}) as Record<string, unknown>,
          req.ip,
        );
        return reply.header('cache-control', 'no-store').send(answer);
      } catch (err) {
        if (err instanceof PresentationError) {
          req.log.info({ reason: err.reason }, 'wallet response refused');
          throw new InvalidRequest(err.message, 'invalid_request');
        }
        throw err;
      }
    },
  });
};
