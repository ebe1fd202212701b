/**
 * The privacy dashboard's sign-in through an organisation's external OpenID provider (docs/web.md
 * "Sign-in"; the rules are `FederatedWebSignIn`'s, src/federation/openid/web-sign-in.ts):
 * - `GET /dashboard/sign-in/idp?organisation={orgID}&next=` → 303 to the provider (through the broker)
 * - `GET /dashboard/sign-in/idp/callback?code=&state=` ← the broker's redirect → 303 to `next`, signed in
 * A link, not a form: a form's post would be refused when it redirects off-site (CSP `form-action 'self'`).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DASHBOARD_IDP_CALLBACK_PATH, type FederatedWebSignIn } from '../../federation/index.js';
import type { WebSessions } from '../../identity/index.js';
import { AssentError } from '../../platform/core/errors.js';
import { httpHeadersOf, httpStatusOf } from '../../platform/http/errors.js';
import { sendPage } from '../shared/html.js';
import { SignInPage, safeNext } from '../sign-in/page.js';
import { type CookieJar, openWebSession } from '../sign-in/routes.js';
import { IdpCallbackQuery, SignInWayQuery } from './schemas.js';

/** What the routes call. */
export interface IdpSignInDeps {
  federated: FederatedWebSignIn;
  sessions: WebSessions;
  /** The session cookie. */
  cookie: CookieJar;
  /** The short-lived cookie binding the flow to this browser (`BINDING_TTL_SECONDS`). */
  idpBinding: CookieJar;
}

const BASE = '/dashboard';

/** @param opts - the services and the cookie helpers. */
export const idpSignInRoutes: FastifyPluginAsyncTypebox<IdpSignInDeps> = async (app, deps) => {
  app.get(`${BASE}/sign-in/idp`, {
    config: { operation: 'web.dashboard.sign-in.idp', web: 'public' },
    schema: { querystring: SignInWayQuery },
    handler: async (req, reply) => {
      const next = safeNext(req.query.next, BASE);
      const started = await deps.federated.start(req.query.organisation, next, req.ip);
      deps.idpBinding.set(reply, started.binding);
      return reply.code(303).header('Location', started.location).header('Cache-Control', 'no-store').send();
    },
  });

  app.get(DASHBOARD_IDP_CALLBACK_PATH, {
    config: { operation: 'web.dashboard.sign-in.idp.callback', web: 'public' },
    schema: { querystring: IdpCallbackQuery },
    handler: async (req, reply) => {
      const binding = deps.idpBinding.read(req);
      // Single use: whatever happens, this browser's binding is spent.
      deps.idpBinding.clear(reply);
      try {
        const { code, state, error } = req.query;
        const { userId, next } = await deps.federated.finish(binding, { code, state, error }, req.ip);
        await openWebSession(deps.sessions, deps.cookie, req, reply, userId);
        // Threat: open redirect through the kept `next`; checked again on the way out.
        return reply.code(303).header('Location', safeNext(next, BASE)).header('Cache-Control', 'no-store').send();
      } catch (err) {
        if (!(err instanceof AssentError) || (httpStatusOf(err) !== 400 && httpStatusOf(err) !== 429)) throw err;
        reply.headers(httpHeadersOf(err));
        const page = SignInPage({
          next: BASE,
          action: `${BASE}/sign-in`,
          app: 'Privacy dashboard',
          home: BASE,
          error: err.message,
        });
        return sendPage(reply, page, httpStatusOf(err));
      }
    },
  });
};
