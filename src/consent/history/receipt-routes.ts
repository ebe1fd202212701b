/**
 * Route of the consent receipts (docs/consents.md "Consent receipts"), under `{base}`:
 * - `GET /organizations/{organizationID}/users/{userID}/consents/history/{eventID}/receipt`
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors } from '../../platform/http/schemas.js';
import type { ReceiptService } from './receipts.js';
import { EventParams, ReceiptBody } from './schemas.js';

/** @param opts - the receipt service. */
export const receiptRoutes: FastifyPluginAsyncTypebox<{ receipts: ReceiptService }> = async (app, { receipts }) => {
  app.get('/organizations/:organizationID/users/:userID/consents/history/:eventID/receipt', {
    config: { operation: 'consents.history.receipt' },
    schema: {
      tags: ['consent history'],
      security: [{ bearer: [] }],
      summary: 'A consent event as a signed ISO/IEC TS 27560 consent receipt',
      description:
        '`Receipt` is the event as an ISO/IEC TS 27560 consent record (DPV terms for states and roles) with its ' +
        'place in the organisation’s hash chain; `JWS` is a compact JWS (`alg: ES256`, `kid`, ' +
        '`typ: consent-receipt+jwt`) whose payload is `Receipt` unchanged, verifiable with `/.well-known/jwks.json` ' +
        'while the signing key is published. Every call issues a new receipt (`receipt_id`, `iat`) of the same event.',
      params: EventParams,
      response: { 200: ReceiptBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => {
      const { organizationID, userID, eventID } = req.params;
      const { receipt, jws } = await receipts.receipt(req.principal as Principal, organizationID, userID, eventID);
      return { Receipt: receipt, JWS: jws };
    },
  });
};
