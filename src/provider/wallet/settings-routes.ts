/**
 * Routes of an organisation's wallet settings, under `{base}` (docs/api.md "Authorization endpoint"; docs/wallet.md "Wallet
 * settings"): `GET|PUT|DELETE /organizations/{organizationID}/wallet`, for its Owner or Admin.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Principal } from '../../platform/core/principal.js';
import { errors, OrgParams } from '../../platform/http/schemas.js';
import { PutBody, SettingsBody } from './schemas.js';
import type { WalletSettingsService } from './settings.js';

const security = [{ bearer: [] }];
const tags = ['wallet'];

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
