/**
 * Why a wallet's response was refused (docs/wallet.md "Verification steps": fail closed at every
 * step). The reason is a fixed code, safe to log and answer: never a claim value or a token.
 */

/** The checks of the verification pipeline that can refuse a response (docs/wallet.md "Verification steps", 1–7). */
export type PresentationFailure =
  | 'unknown_transaction'
  | 'expired_transaction'
  | 'answered_transaction'
  | 'decryption'
  | 'state'
  | 'vp_token'
  | 'credential_header'
  | 'untrusted_issuer'
  | 'credential_signature'
  | 'disclosures'
  | 'credential_claims'
  | 'status'
  | 'key_binding'
  | 'dcql';

/** Thrown by the pipeline when a response fails one check; the endpoint answers 400 `invalid_request`. */
export class PresentationError extends Error {
  override name = 'PresentationError';
  /**
   * @param reason - which check refused it (logged; answered as `error_description`).
   * @param detail - a fixed description of the check, never data from the presentation.
   */
  constructor(
    readonly reason: PresentationFailure,
    detail: string,
  ) {
    super(detail);
  }
}
