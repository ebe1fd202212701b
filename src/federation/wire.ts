/** Builds the federation services from the process context and registers their routes (docs/decisions/0013-federation-broker.md). */
import type { FastifyPluginAsync } from 'fastify';
import type { Context } from '../context.js';
import { Broker } from './broker.js';
import { Exchange } from './exchange.js';
import { federatedLogout } from './logout.js';
import { federationRoutes } from './routes.js';
import { FederationConfigService } from './service.js';

/**
 * The federation plugin, registered under `{base}`.
 * @param opts.ctx - the wired context (store, master key, identity, tokens, configuration).
 */
export const federation: FastifyPluginAsync<{ ctx: Context }> = async (app, { ctx }) => {
  const db = ctx.store.db;
  const configs = new FederationConfigService(db, ctx.master, ctx.config);
  const broker = new Broker(db, ctx.master, configs);
  const exchange = new Exchange({ db, config: ctx.config, master: ctx.master, identity: ctx.identity, tokens: ctx.tokens, configs, broker });
  await app.register(federationRoutes, {
    configs,
    broker,
    exchange,
    logout: async (principal, orgId, log) => {
      try {
        return await federatedLogout(db, ctx.master, configs, principal, orgId, log);
      } finally {
        ctx.liveness.forgetUser(principal.userId); // the session is revoked: its access token must stop working now
      }
    },
  });
};
