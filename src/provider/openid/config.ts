/**
 * The configuration of one organisation's oidc-provider (docs/api.md "Authorization endpoint"; docs/wallet.md "The OpenID
 * provider", "The authorization request", "State and keys";
 * docs/decisions/0017-wallet-sign-in-provider.md): the authorization code flow only, `state` and
 * `nonce` required, PKCE S256 required for public clients, ID tokens signed with Assent's ES256
 * key ring, cookies signed with keys derived from the master key, state in Assent's database, and
 * a wallet sign-in on every authorization (no silent single sign-on).
 */
import type * as OidcProviderModule from 'oidc-provider';
import type { AdapterFactory, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { WalletSignIn } from '../wallet/sign-in.js';
import { errorPage, escapeHtml, htmlHeaders, logoutCsp, page } from './html.js';

/**
 * oidc-provider's module, passed in by `OrgProviders.build`, which loads it with the first provider rather than with
 * this file: it and its Koa stack are some 60 packages, which a process that serves no provider page (the CLI's
 * `assent import`) need not load.
 */
type OidcLib = typeof OidcProviderModule;

/**
 * The claims an ID token and userinfo may carry under the `openid` scope (OpenID Connect Core
 * §5.1 standard claims, plus `acr`, `amr`, `auth_time`): those the organisation's claim mapping
 * produces reach the relying party (docs/wallet.md "Wallet settings", `claimMapping`; the ID token
 * and userinfo of docs/wallet.md "The sign-in page").
 */
export const OPENID_CLAIMS = [
  'sub',
  'acr',
  'amr',
  'auth_time',
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'birthdate',
  'gender',
  'locale',
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'address',
] as const;

/**
 * The `acr` values the provider announces (discovery's `acr_values_supported`, OpenID Connect
 * Discovery 1.0 §3): the ID token's `acr` of docs/wallet.md "Verification steps".
 */
export const WALLET_ACR_VALUES = ['urn:assent:acr:wallet'];

/** Lifetimes (seconds; docs/wallet.md "State and keys"). */
const TTL = { AuthorizationCode: 60, Interaction: 600, Session: 600, Grant: 600, IdToken: 300, AccessToken: 300 };

/** What a provider's configuration is built from. */
export interface ProviderInputs {
  orgId: string;
  /** The issuer's path, e.g. `/v3/service/extension/oidc/{orgId}`: cookies and the interaction URL live under it. */
  prefix: string;
  adapter: AdapterFactory;
  /** Private signing JWKs, the active one first (`KeyRing.privateJwks`). */
  signingKeys: object[];
  /** Cookie signing keys, the current one first (older ones still verify). */
  cookieKeys: string[];
  /** The verifier: the claims of an individual's latest wallet sign-in go into the ID token. */
  wallet: WalletSignIn;
}

/**
 * A validator of a required authorization parameter: runs after the client and redirect URI
 * checks, so the error is redirected (docs/wallet.md "The authorization request").
 */
const required = (oidc: OidcLib, name: string) => async (_ctx: KoaContextWithOIDC, value: string | undefined) => {
  if (!value) throw new oidc.errors.InvalidRequest(`missing required parameter '${name}'`);
};

/** `scope` must contain `openid` (docs/api.md "Authorization endpoint"; OpenID Connect Core §3.1.2.1). */
const openidScope = (oidc: OidcLib) => async (_ctx: KoaContextWithOIDC, value: string | undefined) => {
  if (!value?.split(' ').includes('openid')) throw new oidc.errors.InvalidRequest("scope must contain 'openid'");
};

/** Set by `onlyQueryResponseMode` when the request asked for another response mode. */
const REFUSED_MODE = Symbol('refused response_mode');

/**
 * Koa middleware before oidc-provider's: takes a `response_mode` other than `query` out of an
 * authorization request, so that the error about it is redirected in the query (`form_post` would
 * answer with an auto-posting inline script, which the pages' policy forbids; docs/wallet.md
 * "Headers").
 */
export async function onlyQueryResponseMode(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  const mode = ctx.query.response_mode;
  if (ctx.method === 'GET' && ctx.path === '/auth' && mode !== undefined && mode !== 'query') {
    const query = { ...ctx.query };
    delete query.response_mode;
    ctx.query = query;
    (ctx.state as Record<symbol, boolean>)[REFUSED_MODE] = true;
  }
  await next();
}

/** Refuses the request `onlyQueryResponseMode` marked (RFC 6749 §4.1.2.1: redirected with `invalid_request`). */
const queryMode = (oidc: OidcLib) => async (ctx: KoaContextWithOIDC) => {
  if ((ctx.state as Record<symbol, boolean>)[REFUSED_MODE])
    throw new oidc.errors.InvalidRequest("response_mode must be 'query'");
};

/**
 * The response modes the provider serves (OpenID Connect Discovery 1.0 §3
 * `response_modes_supported`; OAuth 2.0 Multiple Response Type Encoding Practices): `query` only,
 * since `onlyQueryResponseMode` refuses the others.
 */
export const RESPONSE_MODES = ['query'] as const;

/**
 * Koa middleware after oidc-provider's discovery: `response_modes_supported` says what is served.
 * oidc-provider 8 always writes `["form_post","fragment","query"]` (its `discovery` setting can
 * only add keys). A relying party that picks an advertised mode must not get an error instead.
 */
export async function advertiseWhatIsServed(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object')
    (ctx.body as Record<string, unknown>).response_modes_supported = [...RESPONSE_MODES];
}

/** The two redirect-URI checks of oidc-provider's `Client` (its `models/client.js`). */
export interface RedirectUriChecks {
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  /** `/auth` (and whether an authorization error may be redirected). */
  redirectUriAllowed(value: string): boolean;
  /** `/session/end`'s `post_logout_redirect_uri`. */
  postLogoutRedirectUriAllowed(value: string): boolean;
}

/**
 * Replaces oidc-provider's redirect-URI checks with exact string comparison against the registered
 * URIs (RFC 9700 §4.1.3; RFC 6749 §3.1.2.3 "simple string comparison"; docs/wallet.md "Relying
 * parties"). The token endpoint already compares the code's `redirect_uri` as a string.
 * @param client - oidc-provider's `Client.prototype`.
 */
export function exactRedirectUris(client: RedirectUriChecks): void {
  client.redirectUriAllowed = function (this: RedirectUriChecks, value: string) {
    return typeof value === 'string' && (this.redirectUris ?? []).includes(value);
  };
  client.postLogoutRedirectUriAllowed = function (this: RedirectUriChecks, value: string) {
    return typeof value === 'string' && (this.postLogoutRedirectUris ?? []).includes(value);
  };
}

/**
 * The interaction policy: oidc-provider's prompts, with a login check that always asks, so a
 * session left in the browser never yields a code without the wallet (docs/wallet.md "The
 * authorization request").
 */
function walletEveryTime(oidc: OidcLib) {
  const policy = oidc.interactionPolicy.base();
  policy.get('login')?.checks.add(
    // `prompt=none` then answers `login_required` (OpenID Connect Core §3.1.2.6), session or not.
    new oidc.interactionPolicy.Check(
      'wallet_every_time',
      'a wallet sign-in is needed for every authorization',
      'login_required',
      (ctx) =>
        ctx.oidc.result?.login
          ? oidc.interactionPolicy.Check.NO_NEED_TO_PROMPT
          : oidc.interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );
  return policy;
}

/** Sets the HTML headers and body of a provider-rendered page. */
function render(ctx: KoaContextWithOIDC, html: string, csp?: string) {
  ctx.set(htmlHeaders(csp));
  ctx.type = 'html';
  ctx.body = html;
}

/**
 * Our logout page (OpenID Connect RP-Initiated Logout 1.0 §2): a confirmation button that posts
 * oidc-provider's form (`op.logoutForm`, which carries its xsrf value) with `logout=yes`; no script.
 */
export function logoutPage(form: string): string {
  return page(
    'Sign out',
    `<main><h1>Sign out</h1><p>Do you want to sign out?</p>${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button></main>`,
  );
}

/**
 * The configuration of one organisation's provider.
 * @param inputs - see `ProviderInputs`.
 * @param lib - oidc-provider's module, as `import('oidc-provider')` resolves it.
 */
export function providerConfiguration(inputs: ProviderInputs, lib: OidcLib): Configuration {
  const { orgId, prefix } = inputs;
  return {
    adapter: inputs.adapter,
    jwks: { keys: inputs.signingKeys as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      keys: inputs.cookieKeys,
      // Per organisation: several providers share one host (decision 0015 §2, gotcha 3).
      long: { path: prefix, httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    routes: {
      authorization: '/auth',
      token: '/token',
      userinfo: '/userinfo',
      jwks: '/jwks',
      end_session: '/session/end',
    },
    scopes: ['openid'],
    claims: { acr: null, amr: null, auth_time: null, sid: null, openid: [...OPENID_CLAIMS] },
    acrValues: WALLET_ACR_VALUES,
    // The mapped claims go into the ID token too: only `scope=openid` is ever asked (docs/wallet.md
    // "The authorization request"; the ID token of "The sign-in page").
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    enabledJWA: { idTokenSigningAlgValues: ['ES256'], userinfoSigningAlgValues: ['ES256'] },
    pkce: { methods: ['S256'], required: (_ctx, client) => client.tokenEndpointAuthMethod === 'none' },
    extraParams: {
      scope: openidScope(lib),
      response_mode: queryMode(lib),
      state: required(lib, 'state'),
      nonce: required(lib, 'nonce'),
    },
    features: {
      devInteractions: { enabled: false },
      requestObjects: { request: false, requestUri: false },
      // On by default in oidc-provider 8 and no part of docs/api.md "Authorization endpoint". Threat: an endpoint that no
      // relying party needs is attack surface that no test of ours covers.
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          const origins = (ctx.oidc.client?.postLogoutRedirectUris ?? []).map((uri) => new URL(uri).origin);
          render(ctx, logoutPage(form), logoutCsp(origins));
        },
        postLogoutSuccessSource: (ctx) =>
          render(ctx, page('Signed out', '<main><h1>Signed out</h1><p>You have been signed out.</p></main>')),
      },
    },
    interactions: {
      url: (_ctx, interaction) => `${prefix}/interaction/${interaction.uid}`,
      policy: walletEveryTime(lib),
    },
    // No refresh token is issued (docs/wallet.md "The OpenID provider"): oidc-provider's default never
    // issues one here (clients are registered with the authorization_code grant only, and there is
    // no `offline_access` scope), and with the default it neither serves nor advertises the
    // refresh_token grant, which an own `issueRefreshToken` function would make it do.
    // A browser app may call /token and /userinfo only from the origin of one of its redirect URIs.
    clientBasedCORS: (_ctx, origin, client) =>
      client.redirectUris?.some((uri) => URL.canParse(uri) && new URL(uri).origin === origin) ?? false,
    // docs/api.md "Authorization endpoint": `redirect_uri` is required and matched exactly, even for a client with one.
    allowOmittingSingleRegisteredRedirectUri: false,
    ttl: TTL,
    async findAccount(_ctx, sub) {
      return {
        accountId: sub,
        // The claims of the individual's latest verified wallet sign-in, mapped (docs/wallet.md
        // "Verification steps", step 8).
        claims: async () => ({ sub, ...(await inputs.wallet.claimsOf(orgId, sub)) }),
      };
    },
    // No stack, no parameter echoed but the error code and its description (oidc-provider's own text).
    renderError: (ctx, out) => {
      render(ctx, errorPage('Sign-in failed', `${out.error}: ${out.error_description ?? ''}`));
    },
  };
}

/** The confirmation page shown when the browser has no session to end: a button, no auto-posting script. */
export function logoutFormPage(action: string, xsrf: string): string {
  const form = `<form id="op.logoutForm" method="post" action="${escapeHtml(action)}"><input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}"></form>`;
  return logoutPage(form);
}
