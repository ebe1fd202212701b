/**
 * Routes of an organisation's wallet settings, under `{base}` (docs/api.md "Authorization endpoint"; docs/wallet.md "Wallet
 * settings"): `GET|PUT|DELETE /organizations/{organizationID}/wallet`, for its Owner or Admin.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors } from '../../platform/http/schemas.js';
import type { WalletSettingsService } from './settings.js';

const OrgParams = Type.Object({ organizationID: Type.String() });
const security = [{ bearer: [] }];
const tags = ['wallet'];
const Pem = (description: string) => Type.String({ maxLength: 20_000, description });
const ClaimMapping = Type.Record(Type.String(), Type.Array(Type.String()), {
  description: 'ID-token claim → credential claims path; default {"email": ["email_address"]} (+ email_verified)',
});

const PutBody = Type.Object({
  profile: Type.Optional(Type.String({ description: 'haip (default) or compat' })),
  verifierCertificateChain: Type.Optional(Pem('PEM certificates, leaf first (P-256)')),
  verifierPrivateKey: Type.Optional(Pem('PEM private key of the leaf; write-only, sealed, never answered')),
  generateVerifierKey: Type.Optional(
    Type.Boolean({ description: 'true: Assent makes a P-256 key and a self-signed certificate' }),
  ),
  trustedIssuerCertificates: Type.Optional(Type.Array(Pem('one PEM CA certificate'), { maxItems: 20 })),
  dcqlQuery: Type.Optional(
    Type.Unknown({ description: 'DCQL query (OpenID4VP 1.0 §6); dc+sd-jwt with meta.vct_values' }),
  ),
  claimMapping: Type.Optional(ClaimMapping),
  stableClaim: Type.Optional(Type.String({ maxLength: 64, description: 'default email_address' })),
  sameDeviceOnly: Type.Optional(Type.Boolean({ description: 'default false' })),
  deepLinkScheme: Type.Optional(Type.String({ maxLength: 40, description: 'default openid4vp://' })),
  responseEncryption: Type.Optional(
    Type.Array(Type.String(), { maxItems: 2, description: 'enc values of direct_post.jwt; [] for plain direct_post' }),
  ),
});

const SettingsBody = Type.Object({
  profile: Type.String(),
  verifierCertificateChain: Type.String(),
  verifierClientId: Type.String({ description: 'x509_hash:… of the leaf' }),
  trustedIssuerCertificates: Type.Array(Type.String()),
  dcqlQuery: Type.Unknown(),
  claimMapping: ClaimMapping,
  stableClaim: Type.String(),
  sameDeviceOnly: Type.Boolean(),
  deepLinkScheme: Type.String(),
  responseEncryption: Type.Array(Type.String()),
  createdAt: Type.String({ description: 'RFC 3339' }),
  updatedAt: Type.String({ description: 'RFC 3339' }),
});

/** The options of the routes: the settings service (`ctx.walletSettings`). */
export interface WalletSettingsRouteOptions {
  settings: WalletSettingsService;
}

/** @param opts - the services. */
export const walletSettingsRoutes: FastifyPluginAsyncTypebox<WalletSettingsRouteOptions> = async (
  app,
  { settings },
) => {
  app.get('/organizations/:organizationID/wallet', {
    config: { operation: 'wallet.settings.read' },
    schema: {
      tags,
      security,
      summary: 'Get the wallet sign-in settings (never the private key)',
      params: OrgParams,
      response: { 200: SettingsBody, ...errors(401, 403, 404) },
    },
    handler: async (req) => settings.read(req.params.organizationID),
  });
  app.put('/organizations/:organizationID/wallet', {
    config: { operation: 'wallet.settings.put' },
    schema: {
      tags,
      security,
      summary: 'Create or replace the wallet sign-in settings; absent fields take their defaults, the key is kept',
      params: OrgParams,
      body: PutBody,
      response: { 200: SettingsBody, ...errors(400, 401, 403, 404) },
    },
    handler: async (req) => settings.put(req.principal as Principal, req.params.organizationID, req.body),
  });
  app.delete('/organizations/:organizationID/wallet', {
    config: { operation: 'wallet.settings.delete' },
    schema: {
      tags,
      security,
      summary: 'Delete the wallet sign-in settings: wallet sign-in stops',
      params: OrgParams,
      response: { 204: Type.Null(), ...errors(401, 403, 404) },
    },
    handler: async (req, reply) => {
      await settings.remove(req.principal as Principal, req.params.organizationID);
      return reply.code(204).send(null);
    },
  });
};
