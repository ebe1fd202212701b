/**
 * The verifier behind wallet sign-in (docs/api.md "Authorization endpoint"; docs/wallet.md "The verifier"): the
 * `WalletSignIn` the OpenID provider uses (`sign-in.ts`), plus what the wallet's endpoints call
 * (`routes.ts`): the request object, served once, and the response (`receive.ts`).
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../platform/config/load.js';
import { Gone, NotFound } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { MasterKey } from '../../platform/crypto/master-key.js';
import type { Db } from '../../platform/db/open.js';
import { enforce } from '../../platform/ratelimit/limit.js';
import { isId } from '../../platform/util/ids.js';
import { PresentationError } from './errors.js';
import { receiveResponse } from './receive.js';
import { buildRequest, random, TRANSACTION_TTL_SECONDS } from './request.js';
import { ENC_KEY_PURPOSE } from './response.js';
import type { WalletSettingsService } from './settings.js';
import {
  WalletFlowError,
  type WalletLogin,
  WalletNotConfiguredError,
  type WalletOutcome,
  type WalletSignIn,
  type WalletTransactionView,
} from './sign-in.js';
import { StatusListCache } from './status.js';
import * as store from './store.js';
import * as txs from './tx-store.js';

/** How long an ended transaction is kept for the page's last polls before the purge deletes it (seconds). */
export const TX_PURGE_GRACE_SECONDS = 600;
/** `acr` of a wallet sign-in (OIDC Core §2): a holder-bound credential presentation. */
export const WALLET_ACR = 'urn:assent:acr:wallet';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * True when the public URL is plain http at a loopback host (development and tests). Only then may
 * `@openid4vc` accept http URLs: elsewhere a request_uri or response_uri over http could be read
 * or rewritten on the network (OpenID4VP 1.0 §14; docs/wallet.md "Development").
 */
export function insecureLoopback(publicUrl: string): boolean {
  const url = new URL(publicUrl);
  return url.protocol === 'http:' && LOOPBACK.has(url.hostname);
}

/**
 * True when wallet sign-in may run at this public URL: https, or plain http at a loopback host
 * (`insecureLoopback`). Elsewhere the request_uri and response_uri would be http URLs on the
 * network (OpenID4VP 1.0 §14; docs/wallet.md "Development and tests").
 */
export function walletUrlsAllowed(publicUrl: string): boolean {
  return new URL(publicUrl).protocol === 'https:' || insecureLoopback(publicUrl);
}

/** The wallet sign-in verifier: one per process, built by `createContext` as `ctx.wallet`. */
export class WalletFlow implements WalletSignIn {
  private readonly statusCache = new StatusListCache();
  /** `@openid4vc`'s process-wide settings, applied once (`openid4vcReady`). */
  private openid4vc?: Promise<void>;

  /**
   * @param db - the database.
   * @param master - seals the ephemeral keys.
   * @param settings - the organisations' verifier settings.
   * @param config - `publicUrl` (issuers), `walletAllowHttpHosts`, `dnsServers` (status lists), `walletPerIp`.
   */
  constructor(
    private readonly db: Db,
    private readonly master: MasterKey,
    private readonly settings: WalletSettingsService,
    private readonly config: Config,
  ) {}

  /**
   * Applies `@openid4vc`'s process-wide settings before its first use (a request built, a response read): at a
   * loopback http public URL, http URLs are allowed (`insecureLoopback`). `@openid4vc/utils` is loaded then, not at
   * start-up: a process that signs no one in with a wallet (the CLI) need not load it.
   */
  private openid4vcReady(): Promise<void> {
    this.openid4vc ??= insecureLoopback(this.config.publicUrl)
      ? import('@openid4vc/utils').then(({ setGlobalConfig }) => setGlobalConfig({ allowInsecureUrls: true }))
      : Promise.resolve();
    return this.openid4vc;
  }

  /** The provider's issuer of an organisation (docs/wallet.md "The OpenID provider"). */
  issuerOf(orgId: string): string {
    return `${this.config.publicUrl}/v3/service/extension/oidc/${orgId}`;
  }

  async start(input: {
    orgId: string;
    interactionUid: string;
    clientId: string;
    returnUri?: string;
  }): Promise<WalletTransactionView> {
    // Threat: a request object or a presentation sent over plain http, readable or rewritable on the network.
    if (!walletUrlsAllowed(this.config.publicUrl))
      throw new WalletNotConfiguredError(
        'wallet sign-in needs an https ASSENT_PUBLIC_URL (http only at a loopback host)',
      );
    const verifier = isId(input.orgId) ? await this.settings.verifierOf(input.orgId) : null;
    if (!verifier) throw new WalletNotConfiguredError('this organisation has no wallet settings');
    const requestId = random();
    await this.openid4vcReady();
    const built = await buildRequest(verifier, this.issuerOf(input.orgId), requestId);
    const expiresAt = new Date(Date.now() + TRANSACTION_TTL_SECONDS * 1000);
    const { verifierCertificateChain: _, ...snapshot } = verifier.policy;
    await this.db.transaction(async (tx) => {
      await txs.deleteForInteraction(tx, input.orgId, input.interactionUid);
      await txs.insertTx(tx, {
        id: randomUUID(),
        requestId,
        orgId: input.orgId,
        interactionUid: input.interactionUid,
        clientId: input.clientId,
        returnUri: input.returnUri ?? null,
        requestPayload: built.requestPayload,
        requestJwt: built.requestJwt,
        vpState: built.vpState,
        encKid: built.encKid,
        encKeySealed: built.encPrivateJwk ? this.master.seal(built.encPrivateJwk, ENC_KEY_PURPOSE) : null,
        settings: snapshot,
        // A request by value (compat) has no request object to fetch.
        status: built.requestJwt ? 'created' : 'request_fetched',
        expiresAt,
      });
    });
    return { deepLink: built.deepLink, expiresAt, sameDeviceOnly: verifier.policy.sameDeviceOnly };
  }

  async outcome(orgId: string, interactionUid: string): Promise<WalletOutcome> {
    const tx = isId(orgId) ? await txs.currentTx(this.db, orgId, interactionUid) : null;
    if (!tx || tx.status === 'consumed') return { status: 'expired' };
    if (tx.status === 'verified')
      return (tx.settings as { sameDeviceOnly?: boolean }).sameDeviceOnly
        ? { status: 'verified', sameDeviceOnly: true }
        : { status: 'verified' };
    if (tx.status === 'failed') {
      const error = (tx.result as { error?: string } | null)?.error;
      return { status: 'failed', error: error === 'access_denied' ? 'access_denied' : 'invalid_presentation' };
    }
    return tx.expiresAt <= new Date() ? { status: 'expired' } : { status: 'pending' };
  }

  async complete(orgId: string, interactionUid: string, responseCode?: string): Promise<WalletLogin> {
    const tx = isId(orgId) ? await txs.currentTx(this.db, orgId, interactionUid) : null;
    if (tx?.status === 'consumed') throw new WalletFlowError('used');
    if (tx?.status !== 'verified') throw new WalletFlowError('not_verified');
    if (responseCode !== undefined) {
      const stored = tx.responseCodeHash;
      // Threat: session fixation; the same-device return completes only with this transaction's code.
      if (!stored || !timingSafeEqual(stored, sha256(responseCode))) throw new WalletFlowError('wrong_response_code');
    } else if ((tx.settings as { sameDeviceOnly?: boolean }).sameDeviceOnly) {
      // Threat: cross-device phishing of a QR code (HAIP 1.0 §5.1); the organisation allows only same-device.
      throw new WalletFlowError('same_device_only');
    }
    if (!(await txs.consume(this.db, tx.id))) throw new WalletFlowError('used');
    const result = tx.result as { userId: string; verifiedAt: number };
    return { accountId: result.userId, authTime: result.verifiedAt, acr: WALLET_ACR, amr: ['pop'] };
  }

  async claimsOf(orgId: string, accountId: string): Promise<Record<string, unknown>> {
    if (!isId(orgId) || !isId(accountId)) return {};
    return (await store.latestClaims(this.db, orgId, accountId)) ?? {};
  }

  /**
   * The request object of `GET …/oid4vp/request/{requestId}`, once (docs/wallet.md "The verifier").
   * @param ip - the client's address, for the rate limit.
   * @throws {NotFound} for an unknown request. @throws {Gone} when fetched before or expired.
   */
  async requestObject(orgId: string, requestId: string, ip: string): Promise<string> {
    // Threat: automated guessing of request IDs or flooding the pipeline (ASVS 5.0 V2.4.1); generous by
    // default, since one sign-in makes two requests and many phones may share a carrier's address.
    await enforce(this.db, `wallet:ip:${ip}`, this.config.walletPerIp);
    if (!isId(orgId)) throw new NotFound('No such request');
    const row = await txs.takeRequest(this.db, orgId, requestId);
    if (row?.requestJwt) return row.requestJwt;
    if (row) throw new NotFound('No such request');
    // Threat: a request object read twice (a second scanner of the QR code); single use (docs/wallet.md
    // "The verifier").
    if (await txs.findByRequestId(this.db, orgId, requestId))
      throw new Gone('This request was fetched already or has expired', 'invalid_request');
    throw new NotFound('No such request');
  }

  /**
   * The response of `POST …/oid4vp/response` (docs/wallet.md "Verification steps").
   * @param ip - the client's address, for the rate limit.
   * @returns the answer body: `{redirect_uri}` when verified, `{}` for a wallet's error.
   * @throws {PresentationError} when any check fails. @throws {RateLimited} past the IP limit.
   */
  async receive(orgId: string, body: Record<string, unknown>, ip: string): Promise<Record<string, string>> {
    // Threat: automated guessing of request IDs or flooding the pipeline (ASVS 5.0 V2.4.1); generous by
    // default, since one sign-in makes two requests and many phones may share a carrier's address.
    await enforce(this.db, `wallet:ip:${ip}`, this.config.walletPerIp);
    if (!isId(orgId)) throw new PresentationError('unknown_transaction', 'response: no such transaction');
    await this.openid4vcReady();
    return receiveResponse(
      {
        db: this.db,
        master: this.master,
        config: this.config,
        issuer: this.issuerOf(orgId),
        statusCache: this.statusCache,
      },
      orgId,
      body,
    );
  }
}

/**
 * Deletes wallet transactions that expired more than `TX_PURGE_GRACE_SECONDS` ago (the purge of
 * `app/purge.ts`): each keeps a sealed key and a nonce, useless once it cannot be answered.
 * @returns how many were deleted (count).
 */
export function purgeWalletTransactions(db: Db): Promise<number> {
  return txs.purgeExpired(db, TX_PURGE_GRACE_SECONDS);
}
