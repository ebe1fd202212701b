/**
 * A minimal in-memory `WalletSignIn` for the OpenID provider's tests ONLY: it stands in for the
 * real verifier (src/wallet/, built separately) so that the provider's side can be tested alone.
 * A test plays the wallet by calling `verify` / `fail` on the interaction. Injected through the
 * test hook `ctx.wallet = new FakeWallet()`; it is to be replaced by the real verifier and the test
 * wallet of WALLET.md §5.1 when both halves meet.
 */
import { randomBytes } from 'node:crypto';
import {
  WalletFlowError,
  type WalletLogin,
  WalletNotConfiguredError,
  type WalletOutcome,
  type WalletSignIn,
  type WalletTransactionView,
} from '../../src/wallet/sign-in.js';

interface Tx {
  id: string;
  expiresAt: Date;
  outcome: WalletOutcome;
  login?: WalletLogin;
  responseCode?: string;
  used: boolean;
}

/** The fake verifier. */
export class FakeWallet implements WalletSignIn {
  private readonly txs = new Map<string, Tx>();
  private readonly claims = new Map<string, Record<string, unknown>>();
  /** Organisations whose `start` throws `WalletNotConfiguredError`. */
  readonly unconfigured = new Set<string>();
  /** How many transactions `start` created. */
  started = 0;

  async start(input: { orgId: string; interactionUid: string; clientId: string }): Promise<WalletTransactionView> {
    if (this.unconfigured.has(input.orgId)) throw new WalletNotConfiguredError('not configured');
    const id = randomBytes(16).toString('base64url');
    const expiresAt = new Date(Date.now() + 300_000);
    this.txs.set(`${input.orgId}/${input.interactionUid}`, {
      id,
      expiresAt,
      outcome: { status: 'pending' },
      used: false,
    });
    this.started++;
    const requestUri = `http://127.0.0.1/oid4vp/request/${id}`;
    return {
      deepLink: `openid4vp://?client_id=${encodeURIComponent('x509_hash:test')}&request_uri=${encodeURIComponent(requestUri)}`,
      expiresAt,
      sameDeviceOnly: false,
    };
  }

  async outcome(orgId: string, interactionUid: string): Promise<WalletOutcome> {
    const tx = this.txs.get(`${orgId}/${interactionUid}`);
    if (!tx) return { status: 'expired' };
    return tx.outcome;
  }

  async complete(orgId: string, interactionUid: string, responseCode?: string): Promise<WalletLogin> {
    const tx = this.txs.get(`${orgId}/${interactionUid}`);
    const login = tx?.outcome.status === 'verified' ? tx.login : undefined;
    if (!tx || !login) throw new WalletFlowError('not_verified');
    if (typeof responseCode === 'string' && responseCode !== tx.responseCode)
      throw new WalletFlowError('wrong_response_code');
    if (tx.used) throw new WalletFlowError('used');
    tx.used = true;
    return login;
  }

  async claimsOf(orgId: string, accountId: string): Promise<Record<string, unknown>> {
    return this.claims.get(`${orgId}/${accountId}`) ?? {};
  }

  /** The current transaction's ID (changes with every `start`), or undefined. */
  transaction(orgId: string, interactionUid: string): string | undefined {
    return this.txs.get(`${orgId}/${interactionUid}`)?.id;
  }

  /**
   * Plays a wallet whose presentation verified: the interaction's transaction becomes `verified`.
   * @returns the same-device `response_code`.
   */
  verify(orgId: string, interactionUid: string, accountId: string, claims: Record<string, unknown> = {}): string {
    const tx = this.txs.get(`${orgId}/${interactionUid}`);
    if (!tx) throw new Error('no transaction for that interaction');
    tx.outcome = { status: 'verified' };
    tx.responseCode = randomBytes(16).toString('base64url');
    tx.login = { accountId, authTime: Math.floor(Date.now() / 1000), acr: 'urn:assent:acr:wallet', amr: ['pop'] };
    this.claims.set(`${orgId}/${accountId}`, claims);
    return tx.responseCode;
  }

  /** Plays a wallet that declined (`access_denied`) or whose presentation failed verification. */
  fail(orgId: string, interactionUid: string, error: 'access_denied' | 'invalid_presentation' = 'access_denied'): void {
    const tx = this.txs.get(`${orgId}/${interactionUid}`);
    if (!tx) throw new Error('no transaction for that interaction');
    tx.outcome = { status: 'failed', error };
  }
}
