/**
 * The rules of the wallet sign-in interaction (docs/wallet.md "The sign-in page"): every step needs
 * the browser that holds the interaction's cookie (set by oidc-provider at `/auth`, scoped to
 * `…/interaction/{uid}`), so a QR code photographed elsewhere, a forwarded link or another cookie
 * jar cannot finish a sign-in (OpenID4VP §14.2; the "N23: …" and "N24: …" tests of
 * test/oidc-provider-page.test.ts). A verified wallet transaction ends the interaction with a login
 * and a grant of the `openid` scope and claims; a failed one with `access_denied` to the relying
 * party.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import type { RelyingParties } from '../relying-parties/clients.js';
import { WalletFlowError, type WalletLogin, WalletNotConfiguredError, type WalletSignIn } from '../wallet/sign-in.js';
import { OPENID_CLAIMS } from './config.js';
import type { WalletPageModel } from './page.js';
import type { OrgProviders } from './provider.js';

/** A refusal: the HTTP status and a sentence safe to show (no personal data, no token). */
export class InteractionError extends Error {
  override name = 'InteractionError';
  /**
   * @param status - 4xx.
   * @param title - the page's heading.
   * @param message - one sentence for the individual.
   */
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

/** The raw request and response of the browser's call (oidc-provider reads its cookies from them). */
export interface Raw {
  req: IncomingMessage;
  res: ServerResponse;
}

const unknownOrg = () => new InteractionError(404, 'Unknown organisation', 'There is no such organisation.');
const noInteraction = () =>
  new InteractionError(
    400,
    'Sign-in not open in this browser',
    'This sign-in has expired or was started in another browser. Go back to the service and start again.',
  );

/** The paths of one interaction's endpoints. */
export function interactionPaths(mountPath: string, uid: string) {
  const base = `${mountPath}/interaction/${encodeURIComponent(uid)}`;
  return {
    page: base,
    status: `${base}/status`,
    refresh: `${base}/refresh`,
    complete: `${base}/complete`,
    abort: `${base}/abort`,
  };
}

/** The interaction steps, for the routes of routes.ts. */
export class WalletInteractions {
  /**
   * @param providers - the organisations' providers.
   * @param parties - the relying parties (their names).
   * @param wallet - the verifier, read at request time (undefined: wallet sign-in unavailable).
   */
  constructor(
    private readonly providers: OrgProviders,
    private readonly parties: RelyingParties,
    private readonly wallet: WalletSignIn,
  ) {}

  /**
   * Starts a wallet transaction for the interaction and answers what the page shows; every load
   * starts a new transaction, so an earlier QR code stops working (docs/wallet.md "The sign-in
   * page").
   * @throws {InteractionError} 404 unknown organisation or wallet sign-in not set up; 400 no interaction cookie.
   */
  async pageModel(orgId: string, uid: string, raw: Raw): Promise<WalletPageModel> {
    const { organisationName, interaction, mountPath } = await this.open(orgId, uid, raw);
    const clientId = String(interaction.params.client_id);
    const party = await this.parties.findClient(orgId, clientId);
    const view = await this.wallet.start({ orgId, interactionUid: uid, clientId }).catch((err) => {
      if (err instanceof WalletNotConfiguredError) throw notConfigured();
      throw err;
    });
    const paths = interactionPaths(mountPath, uid);
    return {
      organisationName,
      relyingPartyName: party?.name ?? clientId,
      deepLink: view.deepLink,
      expiresAt: view.expiresAt,
      sameDeviceOnly: view.sameDeviceOnly,
      statusUrl: paths.status,
      refreshUrl: paths.refresh,
      abortUrl: paths.abort,
    };
  }

  /**
   * The page's poll: where the transaction stands, and where to go once it has ended (not after a
   * verified same-device-only sign-in, which the wallet's redirect completes); no personal data.
   * @throws {InteractionError} 404 / 400 as `pageModel`.
   */
  async status(orgId: string, uid: string, raw: Raw): Promise<{ status: string; next?: string }> {
    const { mountPath } = await this.open(orgId, uid, raw);
    const outcome = await this.wallet.outcome(orgId, uid);
    // sameDeviceOnly: a verified sign-in completes only through the wallet's redirect; sending the
    // page to `complete` would show an error page while the wallet's redirect is on its way.
    const ended = outcome.status === 'failed' || (outcome.status === 'verified' && !outcome.sameDeviceOnly);
    return ended
      ? { status: outcome.status, next: interactionPaths(mountPath, uid).complete }
      : { status: outcome.status };
  }

  /**
   * The "new code" button: checks the interaction, then the page (reloaded) starts a new transaction.
   * @returns the page's path.
   */
  async refresh(orgId: string, uid: string, raw: Raw): Promise<string> {
    const { mountPath } = await this.open(orgId, uid, raw);
    return interactionPaths(mountPath, uid).page;
  }

  /**
   * Ends the interaction after the page saw `verified` or `failed` (cross-device): the login, or
   * `access_denied`, for the relying party.
   * @returns where to send the browser (oidc-provider's resume URL, which redirects to the relying party).
   * @throws {InteractionError} 409 when the transaction has not ended or was already used.
   */
  async complete(orgId: string, uid: string, raw: Raw): Promise<string> {
    const { provider } = await this.open(orgId, uid, raw);
    const outcome = await this.wallet.outcome(orgId, uid);
    if (outcome.status === 'failed') return this.deny(provider, raw, outcome.error);
    if (outcome.status !== 'verified')
      throw new InteractionError(409, 'Not signed in yet', 'Your wallet has not answered yet. Go back to the page.');
    return this.finish(provider, raw, await this.take(orgId, uid));
  }

  /**
   * The wallet's same-device redirect (OpenID4VP §8.2): completes only in the browser holding the
   * interaction cookie (HAIP §5.1; docs/wallet.md "The sign-in page", `wallet-return`). Elsewhere
   * it answers which page to show: `other_device` ("continue on your other device") or, when the
   * organisation allows only same-device completion, `same_browser_only` (start again in the
   * browser the wallet returns to).
   * @param responseCode - the `response_code` of the wallet's redirect.
   * @returns the URL to send the browser on to, or `{elsewhere}`.
   */
  async walletReturn(
    orgId: string,
    uid: string,
    responseCode: string,
    raw: Raw,
  ): Promise<string | { elsewhere: 'other_device' | 'same_browser_only' }> {
    const opened = await this.open(orgId, uid, raw).catch((err) => {
      if (err instanceof InteractionError && err.status === 400) return null;
      throw err;
    });
    if (!opened) {
      // Another browser: the sign-in goes on where it began, unless the organisation allows only
      // the browser the wallet returns to (HAIP 1.0 §5.1), where it cannot go on at all.
      const { sameDeviceOnly } = await this.wallet.outcome(orgId, uid);
      return { elsewhere: sameDeviceOnly ? 'same_browser_only' : 'other_device' };
    }
    const outcome = await this.wallet.outcome(orgId, uid);
    if (outcome.status === 'failed') return this.deny(opened.provider, raw, outcome.error);
    return this.finish(opened.provider, raw, await this.take(orgId, uid, responseCode));
  }

  /** The individual cancels: `access_denied` to the relying party (RFC 6749 §4.1.2.1). */
  async abort(orgId: string, uid: string, raw: Raw): Promise<string> {
    const { provider } = await this.open(orgId, uid, raw);
    return this.deny(provider, raw, 'access_denied', 'the individual cancelled the sign-in');
  }

  /** The organisation, its provider and the interaction of this browser's cookie, which must be `uid`. */
  private async open(orgId: string, uid: string, raw: Raw) {
    const organisationName = await this.providers.organisationName(orgId);
    if (organisationName === null) throw unknownOrg();
    const provider = await this.providers.get(orgId);
    const interaction = await provider.interactionDetails(raw.req, raw.res).catch(() => null);
    // Session fixation: only the browser that started this interaction may drive it (N23, N24).
    if (!interaction || interaction.uid !== uid) throw noInteraction();
    return { organisationName, provider, interaction, mountPath: this.providers.mountPath(orgId) };
  }

  private async take(orgId: string, uid: string, responseCode?: string): Promise<WalletLogin> {
    try {
      return await this.wallet.complete(orgId, uid, responseCode);
    } catch (err) {
      if (!(err instanceof WalletFlowError)) throw err;
      const status = err.reason === 'wrong_response_code' ? 400 : 409;
      throw new InteractionError(status, 'Sign-in cannot continue', 'This sign-in cannot continue. Start again.');
    }
  }

  /**
   * Logs the individual in with a grant of `openid` and its claims, so no second consent prompt
   * follows (docs/wallet.md "The sign-in page": `complete` leads on to the relying party's code).
   */
  private async finish(provider: Provider, raw: Raw, login: WalletLogin): Promise<string> {
    const interaction = await provider.interactionDetails(raw.req, raw.res);
    const grant = new provider.Grant({ accountId: login.accountId, clientId: String(interaction.params.client_id) });
    grant.addOIDCScope('openid');
    grant.addOIDCClaims([...OPENID_CLAIMS]);
    const grantId = await grant.save();
    const result: InteractionResults = {
      login: { accountId: login.accountId, acr: login.acr, amr: login.amr, ts: login.authTime, remember: false },
      consent: { grantId },
    };
    return provider.interactionResult(raw.req, raw.res, result, { mergeWithLastSubmission: false });
  }

  private deny(provider: Provider, raw: Raw, error = 'access_denied', description?: string): Promise<string> {
    // `invalid_presentation` is the verifier's word; the relying party gets the OAuth code (RFC 6749 §4.1.2.1).
    const result: InteractionResults = {
      error: 'access_denied',
      error_description:
        description ?? (error === 'access_denied' ? 'the wallet declined' : 'the wallet presentation was not accepted'),
    };
    return provider.interactionResult(raw.req, raw.res, result, { mergeWithLastSubmission: false });
  }
}

function notConfigured() {
  return new InteractionError(
    404,
    'Wallet sign-in unavailable',
    'This organisation has not set up wallet sign-in. Go back to the service.',
  );
}
