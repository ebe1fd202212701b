/**
 * `POST …/oid4vp/response`: the verification pipeline of docs/wallet.md "Verification steps",
 * failing closed at every step, each a named call:
 * 1–3. open the response (transaction, decryption, state) — `response.ts`;
 * 4. a wallet's error ends the transaction as failed;
 * 5–7. the vp_token, each presentation and the DCQL query — `presentations.ts`;
 * 8. sign the individual in, keep the result, answer the same-device `redirect_uri`.
 * Nothing personal is logged or answered: errors carry fixed texts (errors.ts).
 */
import type { DcqlQuery } from 'dcql';
import { recordAudit } from '../../organisations/index.js';
import type { Config } from '../../platform/config/load.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db, Executor } from '../../platform/db/open.js';
import { signInCredential } from './accounts.js';
import { PresentationError } from './errors.js';
import { verifyVpToken } from './presentations.js';
import { random } from './request.js';
import { openResponse } from './response.js';
import type { VerifierPolicy } from './settings-rules.js';
import type { StatusListCache } from './status.js';
import { anchorCertificates } from './trust.js';
import * as txs from './tx-store.js';

/** What the pipeline needs. */
export interface ReceiveDeps {
  db: Db;
  master: MasterKey;
  config: Config;
  /** The organisation's provider issuer (the wallet-return URL is under it). */
  issuer: string;
  /** Status-list tokens fetched before (one per process). */
  statusCache: StatusListCache;
}

type Snapshot = Omit<VerifierPolicy, 'verifierCertificateChain'>;

/** Step 5 with the library: the response parameters parsed and `state` matched (OpenID4VP 1.0 §8.1). */
async function checkParameters(
  payload: Record<string, unknown>,
  requestPayload: Record<string, unknown>,
): Promise<void> {
  // Loaded with the first response, not at start-up: a process that signs no one in with a wallet need not load it.
  const { parseOpenid4VpAuthorizationResponsePayload, validateOpenid4vpAuthorizationResponsePayload } = await import(
    '@openid4vc/openid4vp'
  );
  try {
    validateOpenid4vpAuthorizationResponsePayload({
      authorizationRequestPayload: requestPayload as never,
      authorizationResponsePayload: parseOpenid4VpAuthorizationResponsePayload(payload) as never,
    });
  } catch {
    throw new PresentationError('vp_token', 'vp_token: the response parameters are invalid (OpenID4VP 1.0 §8.1)');
  }
}

/**
 * Runs the pipeline on one posted response.
 * @param body - the form body (`response=<JWE>`, or `vp_token`+`state`, or `error`+`state`).
 * @returns `{redirect_uri}` once verified; `{}` after a wallet's error (OpenID4VP 1.0 §8.2, §8.5).
 * @throws {PresentationError} at the first failed check; a transaction whose `state` matched is then failed.
 */
export async function receiveResponse(
  deps: ReceiveDeps,
  orgId: string,
  body: Record<string, unknown>,
): Promise<Record<string, string>> {
  const now = new Date();
  const { tx, payload } = await openResponse(body, (by) => txs.findBy(deps.db, orgId, by), deps.master, now);
  if (payload.error !== undefined) {
    await txs.settle(deps.db, tx.id, { status: 'failed', result: { error: 'access_denied' } });
    return {};
  }
  const snapshot = tx.settings as Snapshot;
  const request = tx.requestPayload as Record<string, unknown>;
  try {
    await checkParameters(payload, request);
    const credentials = await verifyVpToken(payload.vp_token, snapshot.dcqlQuery as DcqlQuery, {
      anchors: anchorCertificates(snapshot.trustedIssuerCertificates),
      clientId: String(request.client_id),
      nonce: String(request.nonce),
      outbound: { allowHttpHosts: deps.config.walletAllowHttpHosts, dnsServers: deps.config.dnsServers },
      statusCache: deps.statusCache,
      now,
    });
    const responseCode = random();
    // One transaction: the individual, the transaction's result and the audit entry commit together.
    await deps.db.transaction(async (t) => {
      const { userId } = await signInCredential(
        t as unknown as Executor,
        orgId,
        credentials[0]!,
        snapshot.stableClaim,
        snapshot.claimMapping,
      );
      const ok = await txs.settle(t, tx.id, {
        status: 'verified',
        result: { userId, verifiedAt: Math.floor(now.getTime() / 1000) },
        // Kept as its SHA-256: a reader of the database holds no code to present (platform/crypto/digest.ts).
        responseCodeHash: sha256(responseCode),
      });
      // Another response got there first: nothing of this one is kept (the throw rolls it back).
      if (!ok) throw new PresentationError('answered_transaction', 'response: the transaction was answered already');
      // The audit names the individual by ID only, never a claim (docs/wallet.md "Verification steps":
      // nothing personal is logged).
      await recordAudit(t, {
        orgId,
        actorUserId: userId,
        actorApiKeyId: null,
        action: 'wallet.sign-in',
        detail: { userId, clientId: tx.clientId },
      });
    });
    // The dashboard's own transactions return to the dashboard; the provider's to its interaction.
    const back = new URL(
      tx.returnUri ?? `${deps.issuer}/interaction/${encodeURIComponent(tx.interactionUid)}/wallet-return`,
    );
    back.searchParams.set('response_code', responseCode);
    return { redirect_uri: back.href };
  } catch (err) {
    // The wallet proved it read this request (state matched): the page learns of the failure at once.
    if (err instanceof PresentationError && err.reason !== 'answered_transaction')
      await txs.settle(deps.db, tx.id, { status: 'failed', result: { error: 'invalid_presentation' } });
    throw err;
  }
}
