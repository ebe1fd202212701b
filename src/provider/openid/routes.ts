/**
 * Routes of the organisations' OpenID providers (docs/api.md "Authorization endpoint"; docs/wallet.md "The OpenID provider"),
 * at the root (docs/api.md "Authorization endpoint": the path has its own version prefix):
 * - `GET /v3/service/extension/oidc/{organisationId}/interaction/{uid}`: the wallet page (HTML)
 * - `GET …/interaction/{uid}/status`: `{status, next?}` for the page's poll (JSON)
 * - `POST …/interaction/{uid}/refresh`: a new code (303 to the page)
 * - `GET …/interaction/{uid}/complete`, `…/wallet-return?response_code=…`, `…/abort`: end the interaction (303)
 * - every other path under `…/{organisationId}/`: oidc-provider (`/auth`, `/token`, `/userinfo`,
 *   `/jwks`, `/.well-known/openid-configuration`, `/session/end`), by raw dispatch (decision 0015 §2)
 * - `GET /assets/{file}`: the page's hashed script and stylesheet
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../platform/core/errors.js';
import { ASSET_PREFIX, assetByName } from './assets.js';
import { errorPage, htmlHeaders } from './html.js';
import { InteractionError, type WalletInteractions } from './interaction.js';
import { otherDevicePage, sameBrowserOnlyPage, walletPage } from './page.js';
import type { OrgProviders } from './provider.js';

/** The options: the providers and the interaction steps, built by `createContext` (`ctx.oidc`). */
export interface ProviderRouteOptions {
  providers: OrgProviders;
  interactions: WalletInteractions;
}

const P = '/v3/service/extension/oidc/:org';
type Params = { org: string; uid: string };
const hidden = { hide: true };

/** Sends an HTML page with the provider pages' headers. */
function html(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).headers(htmlHeaders()).send(body);
}

/** Renders a refusal as the error page; anything else is the app's error handler's. */
function asPage(reply: FastifyReply, err: unknown) {
  if (err instanceof InteractionError) return html(reply, err.status, errorPage(err.title, err.message));
  throw err;
}

/**
 * Makes oidc-provider (Koa, `proxy` on) see the public URL's protocol and host whatever the request
 * carried: its endpoint URLs in discovery and redirects follow the request (decision 0015 §2,
 * gotcha 5), while the issuer is configuration (OpenID Connect Discovery 1.0 §4.3), and its
 * cookies are `Secure` exactly when the public URL is https. `X-Forwarded-For` becomes the client
 * address Fastify resolved (which honours ASSENT_TRUST_PROXY).
 */
function pinToPublicUrl(request: FastifyRequest, publicUrl: URL): void {
  const headers = request.raw.headers;
  // Threat: a forged Host or X-Forwarded-Host/Proto sending a relying party's token request (its secret, the code) elsewhere.
  headers.host = publicUrl.host;
  headers['x-forwarded-host'] = publicUrl.host;
  headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
  headers['x-forwarded-for'] = request.ip;
}

/** The routes; registered at the root by `buildApp`. */
export const providerRoutes: FastifyPluginAsyncTypebox<ProviderRouteOptions> = async (
  app,
  { providers, interactions },
) => {
  providers.setLogger(app.log);
  // oidc-provider reads the bodies of /token and /session/end/confirm itself: leave the stream unread.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));
  const publicUrl = providers.publicUrl();
  const raw = (request: FastifyRequest, reply: FastifyReply) => {
    pinToPublicUrl(request, publicUrl);
    return { req: request.raw, res: reply.raw };
  };

  app.get(
    `${ASSET_PREFIX}:file`,
    { config: { operation: 'oidc.wallet.asset' }, schema: hidden },
    async (request, reply) => {
      const asset = assetByName((request.params as { file: string }).file);
      if (!asset) return reply.code(404).send({ Code: 404, Message: 'Not found' });
      // The name carries the content's hash: a changed file has a new name, so caching for ever is safe.
      return reply.type(asset.type).header('Cache-Control', 'public, max-age=31536000, immutable').send(asset.body);
    },
  );

  app.get(
    `${P}/interaction/:uid`,
    { config: { operation: 'oidc.wallet.page' }, schema: hidden },
    async (request, reply) => {
      const { org, uid } = request.params as Params;
      try {
        return html(reply, 200, await walletPage(await interactions.pageModel(org, uid, raw(request, reply))));
      } catch (err) {
        return asPage(reply, err);
      }
    },
  );

  app.get(
    `${P}/interaction/:uid/status`,
    { config: { operation: 'oidc.wallet.status' }, schema: hidden },
    async (request, reply) => {
      const { org, uid } = request.params as Params;
      try {
        const body = await interactions.status(org, uid, raw(request, reply));
        return reply.header('Cache-Control', 'no-store').send(body);
      } catch (err) {
        if (!(err instanceof InteractionError)) throw err;
        return reply
          .code(err.status)
          .header('Cache-Control', 'no-store')
          .send({ Code: err.status, Message: err.message });
      }
    },
  );

  const ending = (step: 'refresh' | 'complete' | 'abort') => async (request: FastifyRequest, reply: FastifyReply) => {
    const { org, uid } = request.params as Params;
    try {
      return reply.redirect(await interactions[step](org, uid, raw(request, reply)), 303);
    } catch (err) {
      return asPage(reply, err);
    }
  };
  // The "new code" button (a form post): the page then starts a new transaction.
  app.post(
    `${P}/interaction/:uid/refresh`,
    { config: { operation: 'oidc.wallet.refresh' }, schema: hidden },
    (request, reply) => ending('refresh')(request, reply),
  );
  app.get(
    `${P}/interaction/:uid/complete`,
    { config: { operation: 'oidc.wallet.complete' }, schema: hidden },
    (request, reply) => ending('complete')(request, reply),
  );
  app.get(
    `${P}/interaction/:uid/abort`,
    { config: { operation: 'oidc.wallet.abort' }, schema: hidden },
    (request, reply) => ending('abort')(request, reply),
  );

  app.get(
    `${P}/interaction/:uid/wallet-return`,
    { config: { operation: 'oidc.wallet.return' }, schema: hidden },
    async (request, reply) => {
      const { org, uid } = request.params as Params;
      const code = (request.query as { response_code?: unknown }).response_code;
      if (typeof code !== 'string' || code === '') return html(reply, 200, otherDevicePage());
      try {
        const next = await interactions.walletReturn(org, uid, code, raw(request, reply));
        if (typeof next === 'string') return reply.redirect(next, 303);
        return html(reply, 200, next.elsewhere === 'same_browser_only' ? sameBrowserOnlyPage() : otherDevicePage());
      } catch (err) {
        return asPage(reply, err);
      }
    },
  );

  app.all(`${P}/*`, { config: { operation: 'oidc.provider' }, schema: hidden }, async (request, reply) => {
    const { org } = request.params as Params;
    const prefix = `/v3/service/extension/oidc/${org}`;
    // The wallet's endpoints (src/provider/wallet/routes.ts) are not the provider's: a path under them that
    // their routes did not match (e.g. a parameter over the router's 100 characters) is the API's
    // JSON 404, which a wallet can read, not the provider's HTML page.
    if (request.raw.url!.startsWith(`${prefix}/oid4vp/`)) throw new NotFound();
    // No provider is ever built for an organisation that does not exist (docs/api.md "Authorization endpoint"; N20), and the
    // path must spell the organisation as its issuer does, or the mount path below would be wrong.
    if (!request.raw.url!.startsWith(`${prefix}/`) || (await providers.organisationName(org)) === null)
      return html(reply, 404, errorPage('Unknown organisation', 'There is no such organisation.'));
    const provider = await providers.get(org);
    const rest = request.raw.url!.slice(prefix.length) || '/';
    reply.hijack();
    // oidc-provider's mount path is `originalUrl` minus `url`: it must be the issuer's path (decision 0015 §2, gotcha 6).
    Object.assign(request.raw, { originalUrl: `${providers.mountPath(org)}${rest}`, url: rest });
    const { req, res } = raw(request, reply);
    await provider.callback()(req, res);
  });
};
