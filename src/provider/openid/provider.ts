/**
 * The OpenID providers of the organisations (docs/api.md "Authorization endpoint"; docs/decisions/0017-wallet-sign-in-provider.md):
 * one oidc-provider `Provider` per organisation, created on first use, kept in a bounded cache,
 * and rebuilt when Assent's signing-key ring changes (`assent keys rotate`), so that new ID tokens
 * carry the new key and cookies are signed with the new cookie key while the old ones still verify.
 */
import { createHmac } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { KeyRing } from '../../identity/index.js';
import { organisationName } from '../../organisations/index.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../platform/http/errors.js';
import { safeErrorMessage } from '../../platform/util/errors.js';
import type { RelyingParties } from '../relying-parties/clients.js';
import type { WalletSignIn } from '../wallet/sign-in.js';
import { adapterFactory } from './adapter.js';
import {
  advertiseWhatIsServed,
  exactRedirectUris,
  logoutFormPage,
  onlyQueryResponseMode,
  providerConfiguration,
  type RedirectUriChecks,
} from './config.js';
import { errorPage, htmlHeaders } from './html.js';

/** Marks a provider answer whose request met a database outage (see `securityHeaders`). */
const OUTAGE = Symbol('database unavailable');

/** The path under which organisation `orgId`'s provider lives (docs/api.md "Authorization endpoint"). */
export const providerPrefix = (orgId: string) => `/v3/service/extension/oidc/${orgId}`;

/** How many organisations' providers are kept at once; the least recently used is dropped. */
const CACHE_SIZE = 256;

/** One organisation's provider and the key ring it was built from. */
interface Entry {
  provider: Provider;
  /** The `kid`s of the ring (active first) when it was built. */
  kids: string;
}

/** The organisations' providers. */
export class OrgProviders {
  private readonly cache = new Map<string, Promise<Entry>>();
  private log: FastifyBaseLogger | undefined;

  constructor(
    private readonly db: Db,
    /** `ASSENT_PUBLIC_URL`: the issuer is this plus the prefix. */
    private readonly publicUrlText: string,
    private readonly keys: KeyRing,
    private readonly master: MasterKey,
    private readonly parties: RelyingParties,
    /** The verifier (`Context.wallet`). */
    private readonly wallet: WalletSignIn,
  ) {}

  /** Where a provider's internal failures are reported (the app's logger; no request data). */
  setLogger(log: FastifyBaseLogger): void {
    this.log = log;
  }

  /** The issuer of organisation `orgId` (docs/api.md "Authorization endpoint"): `{ASSENT_PUBLIC_URL}/v3/service/extension/oidc/{orgId}`. */
  issuer(orgId: string): string {
    return `${this.publicUrlText.replace(/\/+$/, '')}${providerPrefix(orgId)}`;
  }

  /** The public URL (`ASSENT_PUBLIC_URL`), whose protocol and host every issuer and endpoint URL carries. */
  publicUrl(): URL {
    return new URL(this.publicUrlText);
  }

  /** The issuer's path: the provider's mount path (decision 0015 §2, gotcha 6). */
  mountPath(orgId: string): string {
    return new URL(this.issuer(orgId)).pathname;
  }

  /**
   * The organisation's name, or null when it does not exist (then no provider is ever built for it).
   * @param orgId - from the path (any string).
   */
  async organisationName(orgId: string): Promise<string | null> {
    // One spelling per organisation: the issuer, the cache and the cookies' paths all use the lower-case ID.
    if (orgId !== orgId.toLowerCase()) return null;
    return organisationName(this.db, orgId);
  }

  /**
   * The provider of an existing organisation (check with `organisationName` first), built on
   * first use and again after a key rotation.
   * @param orgId - an existing organisation's ID.
   */
  async get(orgId: string): Promise<Provider> {
    const kids = (await this.keys.jwks()).keys.map((k) => k.kid).join(' ');
    const cached = this.cache.get(orgId);
    if (cached) {
      const entry = await cached.catch(() => undefined);
      if (entry && entry.kids === kids) {
        this.cache.delete(orgId); // most recently used goes last
        this.cache.set(orgId, cached);
        return entry.provider;
      }
      if (this.cache.get(orgId) === cached) this.cache.delete(orgId);
    }
    const building = this.build(orgId, kids);
    this.cache.set(orgId, building);
    building.catch(() => this.cache.get(orgId) === building && this.cache.delete(orgId));
    while (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    return (await building).provider;
  }

  private async build(orgId: string, kids: string): Promise<Entry> {
    const { parties } = this;
    const signingKeys = await this.keys.privateJwks();
    // Cookie keys follow the signing keys: a rotation brings a new one, and the previous ones keep
    // verifying cookies set before it for as long as their signing key is published.
    const cookieKeys = signingKeys.map((k) =>
      this.master.derivedKey(`oidc-cookie ${orgId} ${k.kid}`).toString('base64url'),
    );
    const secretKey = this.master.derivedKey(`oidc-client-placeholder ${orgId}`);
    const placeholder = (clientId: string) => createHmac('sha256', secretKey).update(clientId).digest('base64url');
    const prefix = this.mountPath(orgId);
    // Loaded with the first provider, not at start-up (see `providerConfiguration`); then from the module cache.
    const lib = await import('oidc-provider');
    const provider = new lib.default(
      this.issuer(orgId),
      providerConfiguration(
        {
          orgId,
          prefix,
          adapter: adapterFactory(orgId, this.db, this.parties, placeholder),
          signingKeys,
          cookieKeys,
          wallet: this.wallet,
        },
        lib,
      ),
    );
    // Endpoint URLs follow X-Forwarded-Proto/Host (decision 0015 §2, gotcha 5), which routes.ts
    // sets from the public URL on every request (`pinToPublicUrl`), never from what the client sent.
    provider.proxy = true;
    // Client secrets are stored hashed: the presented one is checked against the hash (decision 0016).
    provider.Client.prototype.compareClientSecret = function (this: { clientId: string }, actual: string) {
      return parties.verifySecret(orgId, this.clientId, actual);
    };
    // Redirect URIs are matched as exact strings (RFC 9700 §4.1.3; docs/wallet.md "Relying parties"):
    // oidc-provider 8 compares them after URL parsing, which folds case, `..` segments and default ports.
    // Threat: a URI that differs from the registered one yet reaches another handler or host
    // (a path-confusion or parser-differential open redirect carrying the code).
    exactRedirectUris(provider.Client.prototype as unknown as RedirectUriChecks);
    provider.use(securityHeaders);
    provider.use(onlyQueryResponseMode);
    provider.use(advertiseWhatIsServed);
    // A failed query's message carries its parameters (a token is a row's id): log the driver's line only.
    provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => {
      if (!isDatabaseUnavailable(err))
        return this.log?.error({ error: safeErrorMessage(err), orgId }, 'OpenID provider error');
      (ctx.state as Record<symbol, boolean>)[OUTAGE] = true;
      this.log?.warn({ error: safeErrorMessage(err), orgId }, 'database unavailable');
    });
    return { provider, kids };
  }
}

/**
 * Koa middleware of every provider answer: `nosniff` and no framing everywhere, and the HTML
 * headers on every page (docs/wallet.md "Headers"). The confirmation page oidc-provider renders
 * when there is no session to end auto-posts with an inline script; it is replaced by our button
 * page.
 */
async function securityHeaders(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  // An outage is not a bug: 503 with Retry-After, as the rest of the API answers (docs/operations.md).
  if ((ctx.state as Record<symbol, boolean>)[OUTAGE]) {
    ctx.status = 503;
    ctx.set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    if (ctx.response.is('html')) ctx.body = errorPage('Try again later', 'The service is temporarily unavailable.');
    else ctx.body = { error: 'temporarily_unavailable', error_description: 'try again later' };
  }
  // MIME sniffing and framing, on the JSON endpoints too.
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  if (ctx.oidc?.route === 'end_session' && typeof ctx.body === 'string' && ctx.body.includes('Submitting Callback')) {
    const secret = (ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? '';
    const action = (ctx.oidc as unknown as { urlFor(name: string): string }).urlFor('end_session_confirm');
    ctx.body = logoutFormPage(action, secret);
    ctx.set(htmlHeaders());
    ctx.type = 'html';
    return;
  }
  if (ctx.response.is('html') && !ctx.response.get('Content-Security-Policy')) ctx.set(htmlHeaders());
}
