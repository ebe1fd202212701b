/**
 * Wallet sign-in to the privacy dashboard (docs/api.md "Authorization endpoint"; docs/web.md "Sign-in"; docs/wallet.md): the
 * verifier's `WalletSignIn` (sign-in.ts) with the dashboard as its own front end instead of an
 * OpenID provider interaction. A transaction is bound to the browser that started it: the browser
 * keeps a random value in an HttpOnly cookie, and the transaction's interaction handle is that
 * value's SHA-256, so only the cookie's holder can complete it (OpenID4VP 1.0 §14.2). The
 * wallet's same-device redirect returns to the dashboard (`returnUri` of the transaction).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { NotFound } from '../../platform/core/errors.js';
import { sha256 } from '../../platform/crypto/digest.js';
import type { Db } from '../../platform/db/open.js';
import { enforce, type RateLimit } from '../../platform/ratelimit/limit.js';
import { isId } from '../../platform/util/ids.js';
import { walletUrlsAllowed } from './flow.js';
import type { WalletSettingsService } from './settings.js';
import type { WalletOutcome, WalletSignIn, WalletTransactionView } from './sign-in.js';

/** The dashboard's same-device return: `{path}/{orgId}/{handle}?next=…&response_code=…`. */
export const DASHBOARD_WALLET_RETURN_PATH = '/dashboard/sign-in/wallet/return';
/** The `client_id` the dashboard's transactions carry (their audit entries name it). */
export const DASHBOARD_CLIENT_ID = 'assent-dashboard';

/** Where a same-device return opened in another browser leaves the individual (docs/wallet.md). */
export type Elsewhere = { elsewhere: 'other_device' | 'same_browser_only' };

/** A handle of the transaction: `d-` and the base64url SHA-256 of the browser's random value. */
const handleOf = (secret: string) => `d-${sha256(secret).toString('base64url')}`;

/** The parts of a binding cookie (`{orgId}.{random}`), or null when malformed. */
function parse(binding: string | undefined): { orgId: string; handle: string } | null {
  const dot = binding?.indexOf('.') ?? -1;
  if (!binding || dot < 0) return null;
  const orgId = binding.slice(0, dot);
  const secret = binding.slice(dot + 1);
  return isId(orgId) && secret.length === 43 ? { orgId, handle: handleOf(secret) } : null;
}

/** The dashboard's wallet sign-in: one per process, built by `createContext`. */
export class DashboardWalletSignIn {
  /**
   * @param db - the database (the rate limit of starts).
   * @param wallet - the verifier.
   * @param settings - the organisations' wallet settings.
   * @param opts.publicUrl - `ASSENT_PUBLIC_URL`: the return URI's origin.
   * @param opts.perIp - starts per client IP and window (`ASSENT_WALLET_PER_IP`, the wallet endpoints' limit).
   */
  constructor(
    private readonly db: Db,
    private readonly wallet: WalletSignIn,
    private readonly settings: WalletSettingsService,
    private readonly opts: { publicUrl: string; perIp: RateLimit },
  ) {}

  /** Whether the organisation offers wallet sign-in here (it has wallet settings, and the public URL allows it). */
  async available(orgId: string): Promise<boolean> {
    if (!isId(orgId) || !walletUrlsAllowed(this.opts.publicUrl)) return false;
    return this.settings.read(orgId).then(
      () => true,
      (err) => {
        if (err instanceof NotFound) return false;
        throw err;
      },
    );
  }

  /**
   * Starts a transaction for this browser.
   * @param next - where to go once signed in (already checked by the page: a dashboard path).
   * @param ip - the client's address, for the rate limit.
   * @returns the cookie's value (`{orgId}.{random}`), and what the page shows.
   * @throws {WalletNotConfiguredError} when the organisation has no wallet settings.
   * @throws {RateLimited} past the per-IP limit.
   */
  async start(orgId: string, next: string, ip: string): Promise<{ binding: string; view: WalletTransactionView }> {
    // Threat: anyone flooding transactions (a row, a signature, a sealed key each) from the public page (ASVS 5.0 V2.4.1).
    await enforce(this.db, `wallet-dashboard:ip:${ip}`, this.opts.perIp);
    const secret = randomBytes(32).toString('base64url');
    const handle = handleOf(secret);
    const returnUri = `${this.opts.publicUrl}${DASHBOARD_WALLET_RETURN_PATH}/${orgId}/${handle}?next=${encodeURIComponent(next)}`;
    const view = await this.wallet.start({ orgId, interactionUid: handle, clientId: DASHBOARD_CLIENT_ID, returnUri });
    return { binding: `${orgId}.${secret}`, view };
  }

  /** Where this browser's transaction stands; `expired` without a (valid) binding. */
  async status(binding: string | undefined): Promise<WalletOutcome> {
    const bound = parse(binding);
    return bound ? this.wallet.outcome(bound.orgId, bound.handle) : { status: 'expired' };
  }

  /**
   * Completes this browser's verified transaction after polling (cross-device), once.
   * @returns the individual's user ID.
   * @throws {WalletFlowError} `not_verified` (also without a binding), `used`, `same_device_only`.
   */
  async complete(binding: string | undefined): Promise<string> {
    const bound = parse(binding);
    const handle = bound?.handle ?? 'd-none';
    return (await this.wallet.complete(bound?.orgId ?? '', handle)).accountId;
  }

  /**
   * The wallet's same-device redirect (OpenID4VP 1.0 §8.2): completes only in the browser whose
   * binding hashes to `handle` (HAIP 1.0 §5.1). Elsewhere it says which page to show, as the
   * provider's interaction does (src/provider/openid/interaction.ts `walletReturn`).
   * @returns the individual's user ID, or `{elsewhere}`.
   * @throws {WalletFlowError} `not_verified`, `used`, `wrong_response_code`.
   */
  async walletReturn(
    orgId: string,
    handle: string,
    binding: string | undefined,
    responseCode: string,
  ): Promise<string | Elsewhere> {
    const bound = parse(binding);
    // Threat: a forwarded same-device link completing in another browser (session fixation); the binding decides.
    if (!bound || bound.orgId !== orgId || !sameHandle(bound.handle, handle)) {
      const { sameDeviceOnly } = await this.wallet.outcome(orgId, handle);
      return { elsewhere: sameDeviceOnly ? 'same_browser_only' : 'other_device' };
    }
    return (await this.wallet.complete(orgId, handle, responseCode)).accountId;
  }
}

/** Whether two handles are equal, in constant time. */
function sameHandle(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
