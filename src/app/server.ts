/**
 * Builds the Fastify application: schemas, OpenAPI, errors, the auth guard and every domain's
 * routes. Every endpoint of the interface lives under `{base}` = `/v1` (docs/api.md "Versioning": the v1.1 login
 * and the authorization endpoint aside); operational endpoints at the root.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { accountRoutes } from '../accounts/index.js';
import {
  checkRoutes,
  consentRequestRoutes,
  consentRoutes,
  dataAttributeRoutes,
  historyRoutes,
  listingRoutes,
  overviewRoutes,
  purposeRoutes,
  receiptRoutes,
  retentionRoutes,
} from '../consent/index.js';
import { federationRoutes, samlRoutes } from '../federation/index.js';
import {
  factorRoutes,
  identityRoutes,
  imageRoutes,
  LoginResponse,
  loginV11Routes,
  ownSessionRoutes,
  passkeyRoutes,
  passwordRoutes,
  TokenBody,
  UserBody,
  userRoutes,
} from '../identity/index.js';
import { eventFeedRoutes, notificationRoutes, webhookRoutes } from '../notifications/index.js';
import {
  anonymousRoutes,
  auditRoutes,
  individualRoutes,
  invitationRoutes,
  orgRoutes,
  staffRoutes,
} from '../organisations/index.js';
import { installActivity } from '../platform/http/activity.js';
import { installAuthGuard } from '../platform/http/auth.js';
import { installBodyKeyCanonicalisation } from '../platform/http/body-keys.js';
import { installBodyParsers } from '../platform/http/body-parsers.js';
import { installCors } from '../platform/http/cors.js';
import { installErrorHandlers } from '../platform/http/errors.js';
import { installSecurityHeaders } from '../platform/http/headers.js';
import { trackHandlers } from '../platform/http/in-flight.js';
import { requestLimitOptions } from '../platform/http/limits.js';
import { loggingOptions } from '../platform/http/logging.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { oidcClientRoutes, providerRoutes, walletRoutes, walletSettingsRoutes } from '../provider/index.js';
import { webRoutes } from '../web/index.js';
import type { Context } from './context.js';
import { healthRoutes } from './health.js';

/** Options of `buildApp`. */
export interface AppOptions {
  /** Log level override (tests pass `silent`). */
  logLevel?: string;
}

/**
 * Builds the app; call `listen` on it, or `inject` in tests. The background workers are not
 * started here: call `ctx.startWorkers` before serving and `ctx.stopWorkers` after `close`.
 * @param ctx - the wired services.
 */
export async function buildApp(ctx: Context, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...loggingOptions(options.logLevel ?? ctx.config.logLevel),
    trustProxy: ctx.config.trustProxy,
    ...requestLimitOptions(ctx.config.requestTimeoutSeconds),
    // Close idle keep-alive sockets on shutdown; in-flight requests still finish.
    forceCloseConnections: 'idle',
    ajv: { customOptions: { removeAdditional: true, coerceTypes: 'array', useDefaults: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // While shutting down, answers close their connection, so keep-alive clients cannot hold the
  // server open past its in-flight requests.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (draining) reply.header('Connection', 'close');
  });
  const handlers = trackHandlers(app);
  // Schemas that routes refer to by ID (`Type.Ref`): registered before any route.
  for (const schema of [ErrorBody, TokenBody, UserBody, LoginResponse]) app.addSchema(schema);
  installErrorHandlers(app);
  installSecurityHeaders(app, ctx.config.publicUrl);
  await installCors(app, ctx.webOrigins, ctx.config.corsOrigins); // before the auth guard: preflights carry no credential
  installBodyParsers(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Assent',
        version: '2.1.6',
        description:
          'Identity, consent and user management; the iGrant.io API family 2.1.6. Paths of the interface (docs/api.md "The interface") are under /v1.',
      },
      servers: [{ url: ctx.config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  // The reference page is served from the bundled swagger-ui files; nothing is loaded from outside.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { validatorUrl: null },
    staticCSP: true,
    // Nothing is fetched from elsewhere, so the policy allows nothing from elsewhere either.
    transformStaticCSP: (header) => header.replace(/ validator\.swagger\.io/g, '').replace(/ https:/g, ''),
  });
  app.get('/openapi.json', { config: { operation: 'docs.openapi' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  installBodyKeyCanonicalisation(app);
  installActivity(app);
  installAuthGuard(app, ctx.guard);
  await ctx.liveness.attach(ctx.store);
  app.addHook('onClose', async () => ctx.liveness.detach());
  await ctx.roles.attach(ctx.store);
  app.addHook('onClose', async () => ctx.roles.detach());

  await app.register(healthRoutes, { store: ctx.store, keys: ctx.keys });
  await app.register(loginV11Routes, { identity: ctx.identity });
  await app.register(passwordRoutes, { passwords: ctx.passwords }); // {base}/user/password/* and the page /password/reset
  await app.register(walletRoutes, { wallet: ctx.wallet }); // /v3/service/extension/oidc/{organisationId}/oid4vp/*
  await app.register(invitationRoutes, { invitations: ctx.invitations, publicUrl: ctx.config.publicUrl }); // {base}/…/invitations* and the page /invitations/accept
  const { members: staff, invitations: staffInvitations, policies } = ctx.staff;
  await app.register(staffRoutes, { staff, staffInvitations, policies, publicUrl: ctx.config.publicUrl }); // {base}/…/admins*, the page /staff-invitations/accept
  // docs/api.md "Authorization endpoint": each organisation's OpenID provider and its wallet sign-in page, at the root.
  await app.register(providerRoutes, { providers: ctx.oidc.providers, interactions: ctx.oidc.interactions });
  // The web front ends (docs/web.md): /dashboard, /console and /web/assets/, at the root.
  await app.register(webRoutes, {
    sessions: ctx.webSessions,
    identity: ctx.identity,
    consents: ctx.consents,
    ownRecords: ctx.ownRecords,
    history: ctx.history,
    users: ctx.users,
    images: ctx.images,
    passwords: ctx.passwords,
    accounts: ctx.accounts,
    receipts: ctx.receipts,
    purposes: ctx.purposes,
    dataAttributes: ctx.dataAttributes,
    retention: ctx.retention,
    consentRequests: ctx.consentRequests,
    notifications: ctx.notifications,
    webhooks: ctx.webhooks.service,
    federationConfigs: ctx.federation.configs,
    walletSettings: ctx.walletSettings,
    oidcClients: ctx.oidc.clients,
    auditLog: ctx.auditLog,
    staff: ctx.staff,
    individuals: ctx.individuals,
    listings: ctx.listings,
    rolesIn: ctx.guard.rolesIn,
    publicUrl: ctx.config.publicUrl,
    federated: ctx.webSignIn.federated,
    walletSignIn: ctx.webSignIn.wallet,
    secondStep: ctx.factors.secondStep,
    factors: ctx.factors,
    // docs/security.md "Staff policy": staff of an organisation that requires a second factor, without one.
    factorMissing: async (userId) =>
      (await ctx.staff.policies.requiresFactor(userId)) && !(await ctx.factors.factors.hasFactor(userId)),
  });
  await app.register(
    async (v1) => {
      await v1.register(loginV11Routes, { identity: ctx.identity });
      await v1.register(identityRoutes, { identity: ctx.identity });
      await v1.register(factorRoutes, ctx.factors); // /user/mfa*, /user/reauthenticate, /users/login/mfa
      await v1.register(ownSessionRoutes, ctx.factors); // /user/sessions*
      await v1.register(passkeyRoutes, { ...ctx.factors, identity: ctx.identity }); // /user/passkeys*, /users/login/passkey*
      await v1.register(orgRoutes);
      await v1.register(auditRoutes, { auditLog: ctx.auditLog, publicUrl: ctx.config.publicUrl });
      await v1.register(userRoutes, { users: ctx.users });
      await v1.register(imageRoutes, { images: ctx.images });
      await v1.register(purposeRoutes, { purposes: ctx.purposes });
      await v1.register(retentionRoutes, { retention: ctx.retention });
      await v1.register(dataAttributeRoutes, { dataAttributes: ctx.dataAttributes });
      await v1.register(individualRoutes, { individuals: ctx.individuals, publicUrl: ctx.config.publicUrl });
      await v1.register(consentRoutes, { consents: ctx.consents });
      await v1.register(listingRoutes, { listings: ctx.listings, publicUrl: ctx.config.publicUrl });
      await v1.register(overviewRoutes, { listings: ctx.listings });
      await v1.register(checkRoutes, { checks: ctx.checks });
      await v1.register(historyRoutes, {
        consents: ctx.consents,
        history: ctx.history,
        publicUrl: ctx.config.publicUrl,
      });
      await v1.register(receiptRoutes, { receipts: ctx.receipts });
      await v1.register(consentRequestRoutes, { requests: ctx.consentRequests, publicUrl: ctx.config.publicUrl });
      await v1.register(notificationRoutes, { notifications: ctx.notifications, publicUrl: ctx.config.publicUrl });
      await v1.register(eventFeedRoutes, { feed: ctx.eventFeed, publicUrl: ctx.config.publicUrl });
      await v1.register(webhookRoutes, { webhooks: ctx.webhooks.service, publicUrl: ctx.config.publicUrl });
      await v1.register(anonymousRoutes, { anonymous: ctx.anonymous });
      await v1.register(accountRoutes, { accounts: ctx.accounts });
      await v1.register(federationRoutes, { ...ctx.federation });
      await v1.register(samlRoutes, { ...ctx.saml });
      await v1.register(oidcClientRoutes, { clients: ctx.oidc.clients });
      await v1.register(walletSettingsRoutes, { settings: ctx.walletSettings });
    },
    { prefix: '/v1' },
  );
  // Last added, so first run: handlers whose client has gone finish before anything they use is released.
  app.addHook('onClose', () => handlers.drained());
  app.decorate('requestsInFlight', () => handlers.running());
  return app;
}
