/**
 * The web front ends (docs/web.md), served by Assent itself: the privacy dashboard at
 * `/dashboard`, the console at `/console`, and the hashed static files at `/web/assets/`. One encapsulated Fastify plugin, so
 * that its cookie parsing, guard and HTML error pages apply to its routes only and the JSON API
 * keeps its own.
 */
import cookie from '@fastify/cookie';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { BINDING_TTL_SECONDS, type FederatedWebSignIn } from '../federation/index.js';
import { type SecondStep, WEB_SESSION_SECONDS } from '../identity/index.js';
import { NotFound } from '../platform/core/errors.js';
import type { DashboardWalletSignIn } from '../provider/index.js';
import { type AuditDeps, auditRoutes } from './console/audit-routes.js';
import type { EventsDeps } from './console/events-data.js';
import { consoleEventsRoutes } from './console/events-routes.js';
import { consoleIdpRoutes } from './console/idp-routes.js';
import { type ConsoleIndividualsDeps, consoleIndividualsRoutes } from './console/individuals-routes.js';
import type { IntegrationsDeps } from './console/integrations-data.js';
import { integrationsRoutes } from './console/integrations-routes.js';
import { type ConsoleOverviewDeps, consoleOverviewRoutes } from './console/overview-routes.js';
import { consolePushRoutes } from './console/push-routes.js';
import { type ConsoleRequestsDeps, consoleRequestsRoutes } from './console/requests-routes.js';
import { type ConsoleDeps, consoleRoutes } from './console/routes.js';
import { CONSOLE_USER_NAV } from './console/shell.js';
import { type ConsoleStaffDeps, consoleStaffRoutes } from './console/staff-routes.js';
import { consoleWalletRoutes } from './console/wallet-routes.js';
import { type DashboardImageDeps, dashboardImageRoutes } from './dashboard/image-routes.js';
import { type DashboardDeps, dashboardRoutes } from './dashboard/routes.js';
import { DASHBOARD_NAV } from './dashboard/shell.js';
import { idpSignInRoutes } from './dashboard/sign-in-idp-routes.js';
import { walletSignInRoutes } from './dashboard/sign-in-wallet-routes.js';
import { WALLET_PATH } from './dashboard/wallet-sign-in.js';
import { type SecurityDeps, securityRoutes } from './security/routes.js';
import { ASSET_PREFIX, ASSETS_BY_NAME } from './shared/assets.js';
import { installWebErrors, installWebNotFound } from './shared/error-page.js';
import { cookieName, type FactorMissing, installWebGuard, type RolesIn } from './shared/guard.js';
import { safeNext } from './sign-in/page.js';
import { type CookieJar, signInRoutes } from './sign-in/routes.js';

/** One year (seconds): hashed files never change under their name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** What the web front ends call, and the public URL (the cookie's flags and the allowed origin). */
export type WebDeps = Omit<DashboardDeps, 'cookie'> &
  DashboardImageDeps &
  ConsoleDeps &
  ConsoleRequestsDeps &
  IntegrationsDeps &
  EventsDeps &
  ConsoleOverviewDeps &
  AuditDeps &
  ConsoleIndividualsDeps &
  ConsoleStaffDeps & {
    publicUrl: string;
    rolesIn: RolesIn;
    /** The dashboard's sign-in through an organisation's external OpenID provider. */
    federated: FederatedWebSignIn;
    /** The dashboard's wallet sign-in. */
    walletSignIn: DashboardWalletSignIn;
    /** The second step of the password sign-ins (docs/security.md "Second factors"). */
    secondStep: SecondStep;
    /** Staff whose organisation requires a second factor, without one (docs/security.md "Staff policy"). */
    factorMissing: FactorMissing;
  } & SecurityDeps;

/**
 * One cookie of the web front ends. Threat: the cookie read by script (HttpOnly), sent cross-site
 * (SameSite=Lax; a top-level return from a provider or wallet still carries it), over plain http
 * (Secure), or set by a sibling subdomain (the `__Host-` prefix under https, so path `/`).
 * @param maxAge - its lifetime (seconds).
 */
function cookieJar(publicUrl: string, base: string, maxAge: number): CookieJar {
  const name = cookieName(publicUrl, base);
  const flags = { path: '/', httpOnly: true, sameSite: 'lax', secure: publicUrl.startsWith('https:') } as const;
  return {
    set: (reply, value) => reply.setCookie(name, value, { ...flags, maxAge }),
    clear: (reply) => reply.clearCookie(name, flags),
    read: (request) => request.cookies[name],
  };
}

/** Registers the web front ends. */
export const webRoutes: FastifyPluginAsyncTypebox<WebDeps> = async (app, deps) => {
  // Pages, not API: left out of the OpenAPI description (docs/web.md lists them).
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(cookie);
  installWebGuard(app, deps.sessions, deps.publicUrl, deps.rolesIn, deps.factorMissing);
  installWebErrors(app);

  app.get(`${ASSET_PREFIX}:name`, {
    config: { operation: 'web.asset' },
    schema: { params: Type.Object({ name: Type.String({ maxLength: 100 }) }) },
    handler: (req, reply) => {
      const asset = ASSETS_BY_NAME.get(req.params.name);
      if (!asset) throw new NotFound('No such file');
      return reply.type(asset.type).header('Cache-Control', IMMUTABLE).send(asset.body);
    },
  });

  const jar = cookieJar(deps.publicUrl, 'assent-web', WEB_SESSION_SECONDS);
  // Short-lived: a sign-in begun at the provider or the wallet binds to this browser for 10 minutes.
  const idpBinding = cookieJar(deps.publicUrl, 'assent-web-idp', BINDING_TTL_SECONDS);
  const walletBinding = cookieJar(deps.publicUrl, 'assent-web-wallet', BINDING_TTL_SECONDS);
  const ways = async (orgId: string, next: string) => {
    const [idp, wallet] = await Promise.all([deps.federated.providerName(orgId), deps.walletSignIn.available(orgId)]);
    const query = new URLSearchParams({ organisation: orgId, next: safeNext(next, '/dashboard') }).toString();
    return {
      idp: idp === null ? undefined : { name: idp, href: `/dashboard/sign-in/idp?${query}` },
      wallet: wallet ? { href: `${WALLET_PATH}?${query}` } : undefined,
    };
  };
  await app.register(signInRoutes, {
    ...deps,
    cookie: jar,
    base: '/dashboard',
    app: 'Privacy dashboard',
    operations: {
      page: 'web.dashboard.sign-in.page',
      submit: 'web.dashboard.sign-in',
      secondFactor: 'web.dashboard.sign-in.second-factor',
      secondFactorPasskey: 'web.dashboard.sign-in.second-factor.passkey',
      passkeyOptions: 'web.dashboard.sign-in.passkey.options',
      passkey: 'web.dashboard.sign-in.passkey',
      forgotPage: 'web.dashboard.forgot-password.page',
      forgot: 'web.dashboard.forgot-password',
      signOut: 'web.dashboard.sign-out',
    },
    passkeys: deps.factors.passkeys,
    ways,
  });
  await app.register(idpSignInRoutes, { ...deps, cookie: jar, idpBinding });
  await app.register(walletSignInRoutes, { ...deps, cookie: jar, walletBinding });
  await app.register(dashboardRoutes, { ...deps, cookie: jar });
  await app.register(dashboardImageRoutes, deps);
  await app.register(securityRoutes, { ...deps, base: '/dashboard', app: 'Privacy dashboard', nav: DASHBOARD_NAV });
  await app.register(securityRoutes, { ...deps, base: '/console', app: 'Console', nav: CONSOLE_USER_NAV });
  await app.register(signInRoutes, {
    ...deps,
    cookie: jar,
    base: '/console',
    app: 'Console',
    operations: {
      page: 'web.console.sign-in.page',
      submit: 'web.console.sign-in',
      secondFactor: 'web.console.sign-in.second-factor',
      secondFactorPasskey: 'web.console.sign-in.second-factor.passkey',
      passkeyOptions: 'web.console.sign-in.passkey.options',
      passkey: 'web.console.sign-in.passkey',
      forgotPage: 'web.console.forgot-password.page',
      forgot: 'web.console.forgot-password',
      signOut: 'web.console.sign-out',
    },
    passkeys: deps.factors.passkeys,
  });
  await app.register(consoleRoutes, deps);
  await app.register(consoleRequestsRoutes, deps);
  await app.register(consoleOverviewRoutes, deps);
  await app.register(integrationsRoutes, deps);
  await app.register(consoleIdpRoutes, deps);
  await app.register(consolePushRoutes, deps);
  await app.register(consoleWalletRoutes, deps);
  await app.register(consoleStaffRoutes, deps);
  await app.register(consoleEventsRoutes, deps);
  await app.register(auditRoutes, deps);
  await app.register(consoleIndividualsRoutes, deps);
  // An unknown path or method below a front end is that front end's 404 page, not the API's JSON 404.
  for (const prefix of ['/dashboard', '/console'])
    await app.register(async (child) => installWebNotFound(child), { prefix });
};
