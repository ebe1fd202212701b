/**
 * What the OpenID provider's sign-in page (src/provider/) asks of the wallet verifier (src/provider/wallet/):
 * the contract between the two halves of wallet sign-in (docs/api.md "Authorization endpoint") (docs/wallet.md "The verifier", "The sign-in
 * page"). The provider owns the OpenID Connect side (the interaction, its cookie, codes and
 * tokens); the verifier owns the OpenID4VP transaction, its verification and the individual it
 * signs in.
 */

/** Where a wallet transaction stands, as the page may see it: never personal data. */
export type WalletStatus = 'pending' | 'verified' | 'failed' | 'expired';

/** The answer of `WalletSignIn.start`: what the page shows for one transaction. */
export interface WalletTransactionView {
  /**
   * The request for the wallet (OpenID4VP 1.0 §5.10, §8.2): `openid4vp://?client_id=…&request_uri=…`
   * (the scheme per organisation); the QR code and the "Open in wallet" link both carry it.
   */
  deepLink: string;
  /** When the transaction stops accepting a response (at most 300 s after its start). */
  expiresAt: Date;
  /** The organisation allows only same-device completion (HAIP §5.1; docs/wallet.md "Wallet settings"). */
  sameDeviceOnly: boolean;
}

/** How a transaction ended, once it has: `verified`, or why not (mapped to an OIDC error by the provider). */
export interface WalletOutcome {
  status: WalletStatus;
  /**
   * When `status` is `failed`: `access_denied` when the wallet declined (OpenID4VP §8.5), else
   * `invalid_presentation` (a presentation that failed verification, never saying which check).
   */
  error?: 'access_denied' | 'invalid_presentation';
  /**
   * When `status` is `verified` and the organisation allows only same-device completion (HAIP 1.0
   * §5.1; `sameDeviceOnly` of the transaction's settings): only the wallet's redirect with its
   * `response_code` can complete, so the page must not be sent to the cross-device completion.
   */
  sameDeviceOnly?: true;
}

/** A verified wallet sign-in, ready for `interactionFinished({ login })` (OIDC Core §2, RFC 8176). */
export interface WalletLogin {
  /** The Assent individual's user ID: the ID token's `sub`. */
  accountId: string;
  /** Seconds since the epoch when the presentation was verified: the ID token's `auth_time`. */
  authTime: number;
  /** Authentication context class reference for the ID token. */
  acr: string;
  /** Authentication methods (RFC 8176), e.g. `["pop"]`. */
  amr: string[];
}

/** Thrown by `complete` when there is nothing to complete: the page answers 4xx and issues no code. */
export class WalletFlowError extends Error {
  override name = 'WalletFlowError';
  /**
   * @param reason - `not_verified` (no verified transaction for the interaction), `used` (already
   *   completed), `wrong_response_code` (same-device return with an unknown or reused code),
   *   `same_device_only` (cross-device completion where the organisation forbids it).
   */
  constructor(readonly reason: 'not_verified' | 'used' | 'wrong_response_code' | 'same_device_only') {
    super(`wallet sign-in cannot complete: ${reason}`);
  }
}

/** The verifier as the provider uses it; one instance per process, built in `src/app/context.ts`. */
export interface WalletSignIn {
  /**
   * Starts a new transaction for an interaction, invalidating any earlier one of the same
   * interaction (the page's "new code" button).
   * @param input.orgId - the organisation (its wallet settings apply; snapshot kept in the transaction).
   * @param input.interactionUid - oidc-provider's interaction `uid`.
   * @param input.clientId - the relying party's `client_id` (for the audit log and the wallet's display).
   * @param input.returnUri - where the wallet's same-device redirect returns, `response_code`
   *   appended (OpenID4VP 1.0 §8.2); absent: the provider's `…/interaction/{uid}/wallet-return`.
   *   Set by Assent's own pages only (the privacy dashboard), never from a request.
   * @throws {WalletNotConfiguredError} when the organisation has no usable verifier settings, or
   *   the public URL is plain http at a non-loopback host.
   */
  start(input: {
    orgId: string;
    interactionUid: string;
    clientId: string;
    returnUri?: string;
  }): Promise<WalletTransactionView>;
  /** Where the interaction's current transaction stands; `expired` after its `expiresAt`. */
  outcome(orgId: string, interactionUid: string): Promise<WalletOutcome>;
  /**
   * Takes the verified result of the interaction's current transaction, once.
   * @param responseCode - the `response_code` of a same-device return (OpenID4VP §8.2); absent
   *   when the page completes after polling (cross-device).
   * @throws {WalletFlowError} when there is nothing to complete (see its reasons).
   */
  complete(orgId: string, interactionUid: string, responseCode?: string): Promise<WalletLogin>;
  /**
   * The ID-token and userinfo claims of the individual's latest verified wallet sign-in at the
   * organisation, mapped by its claim mapping (e.g. `{email, email_verified, given_name}`), without `sub`.
   * @returns `{}` when the individual has none.
   */
  claimsOf(orgId: string, accountId: string): Promise<Record<string, unknown>>;
}

/**
 * Thrown by `start` when the organisation has no wallet settings, or when the public URL is plain http at a
 * non-loopback host: the provider shows its error page (404) instead of a QR code.
 */
export class WalletNotConfiguredError extends Error {
  override name = 'WalletNotConfiguredError';
}
