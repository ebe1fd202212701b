/**
 * Opening a wallet's response (docs/wallet.md "Verification steps", steps 1–3; OpenID4VP 1.0 §8.2,
 * §8.3): find its transaction (by the JWE's `kid`, or by `state`), refuse unknown, expired or
 * answered ones, decrypt `direct_post.jwt` with the transaction's key under ECDH-ES and the allowed
 * `enc` only, and match `state`.
 */
import type { MasterKey } from '../../platform/crypto/master-key.js';
import { PresentationError } from './errors.js';
import type { TxRow } from './tx-store.js';

/** The sealing purpose of ephemeral response-encryption keys. */
export const ENC_KEY_PURPOSE = 'wallet-response-key';

/** A response whose transaction is found and live, decrypted, with its `state` checked. */
export interface OpenedResponse {
  tx: TxRow;
  /** The response parameters (OpenID4VP 1.0 §8.1): `vp_token`, `state`, or `error`. */
  payload: Record<string, unknown>;
}

/** How the transaction of a response is looked up. */
export type FindTx = (by: { kid?: string; state?: string }) => Promise<TxRow | null>;

async function decrypt(jwe: string, tx: TxRow, master: MasterKey): Promise<Record<string, unknown>> {
  const encs = (tx.settings as { responseEncryption: string[] }).responseEncryption;
  if (!tx.encKeySealed) throw new PresentationError('decryption', 'response: no decryption key');
  const { compactDecrypt, importJWK } = await import('jose');
  const key = await importJWK(JSON.parse(master.open(tx.encKeySealed, ENC_KEY_PURPOSE)), 'ECDH-ES');
  try {
    // Threat: algorithm substitution; only the algorithms the request offered are accepted.
    const { plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: encs,
    });
    const payload = JSON.parse(Buffer.from(plaintext).toString('utf8'));
    if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new Error('not an object');
    return payload;
  } catch {
    throw new PresentationError('decryption', 'response: cannot be decrypted with this transaction’s key');
  }
}

/**
 * Finds, checks and opens a response.
 * @param body - the form body posted to the response_uri.
 * @param now - the time of the check.
 * @throws {PresentationError} `unknown_transaction`, `expired_transaction`, `answered_transaction`, `decryption`, `state`.
 */
export async function openResponse(
  body: Record<string, unknown>,
  find: FindTx,
  master: MasterKey,
  now: Date,
): Promise<OpenedResponse> {
  let tx: TxRow | null = null;
  let kid: string | undefined;
  if (typeof body.response === 'string') {
    // Loaded with the first response, not at start-up: a process that signs no one in with a wallet need not load it.
    const { decodeProtectedHeader } = await import('jose');
    try {
      const header = decodeProtectedHeader(body.response);
      if (header.alg !== 'ECDH-ES') throw new Error('alg');
      kid = typeof header.kid === 'string' ? header.kid : undefined;
    } catch {
      throw new PresentationError('decryption', 'response: not a JWE with alg ECDH-ES');
    }
    if (kid) tx = await find({ kid });
  } else if (typeof body.state === 'string') tx = await find({ state: body.state });
  if (!tx) throw new PresentationError('unknown_transaction', 'response: no such transaction');
  if (tx.status !== 'created' && tx.status !== 'request_fetched')
    throw new PresentationError('answered_transaction', 'response: the transaction was answered already');
  if (tx.expiresAt <= now) throw new PresentationError('expired_transaction', 'response: the transaction expired');
  let payload: Record<string, unknown>;
  if (typeof body.response === 'string') payload = await decrypt(body.response, tx, master);
  else {
    payload = body;
    // An encrypted response was requested: only a plain error is allowed (OpenID4VP 1.0 §8.3.1).
    if (tx.encKid && payload.error === undefined)
      throw new PresentationError('decryption', 'response: direct_post.jwt was requested');
  }
  if (payload.state !== tx.vpState) throw new PresentationError('state', 'response: state does not match');
  return { tx, payload };
}
