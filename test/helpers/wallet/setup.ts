/**
 * Shared set-up of the wallet verifier tests: a test server allowed to fetch status lists from
 * 127.0.0.1, the PKI, the status-list server, the organisation's wallet settings through the admin
 * API, and a transaction started in-process through `ctx.wallet.start` (until the provider's /auth
 * flow lands; WALLET.md §5.1).
 */
import { randomUUID } from 'node:crypto';
import { call, login, startAssent, type TestAssent } from '../assent.js';
import { holderKey, type IssueOptions, issue } from './issuer.js';
import { createPki, type TestPki } from './pki.js';
import { type StatusServer, startStatusServer } from './status-server.js';
import { TestWallet } from './wallet.js';

/** Everything a wallet test needs. */
export interface WalletHarness {
  t: TestAssent;
  pki: TestPki;
  status: StatusServer;
  orgId: string;
  ownerToken: string;
  wallet: TestWallet;
  /** Issues a credential to the harness wallet (defaults: valid, signed by pki.issuer). */
  credential(opts?: Partial<IssueOptions>): Promise<string>;
  /** Starts a transaction in-process; returns the interaction uid and the view. */
  start(orgId?: string): Promise<{ uid: string; deepLink: string; sameDeviceOnly: boolean }>;
  /** PUTs wallet settings for an organisation as its Owner. */
  configure(settings: Record<string, unknown>, orgId?: string): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** Starts the harness; the organisation gets `profile` settings with a generated key, trusting pki.root. */
export async function startWalletHarness(settings: Record<string, unknown> = {}): Promise<WalletHarness> {
  const t = await startAssent({ ASSENT_WALLET_ALLOW_HTTP_HOSTS: '127.0.0.1' });
  const [pki, status, holder] = await Promise.all([createPki(), startStatusServer(), holderKey()]);
  const orgId = t.ids.organisations.acme!.id;
  const ownerToken = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  const wallet = new TestWallet(holder);
  const configure = (body: Record<string, unknown>, org = orgId) =>
    call(`${t.base}/organizations/${org}/wallet`, { method: 'PUT', token: ownerToken, body });
  const put = await configure({ generateVerifierKey: true, trustedIssuerCertificates: [pki.root.pem], ...settings });
  if (put.status !== 200) throw new Error(`wallet settings: ${put.status} ${JSON.stringify(put.body)}`);
  return {
    t,
    pki,
    status,
    orgId,
    ownerToken,
    wallet,
    configure,
    credential: (opts = {}) => issue({ holder, signer: pki.issuer, ...opts }),
    async start(org = orgId) {
      const uid = randomUUID();
      const view = await t.ctx.wallet.start({ orgId: org, interactionUid: uid, clientId: 'web-shop' });
      return { uid, deepLink: view.deepLink, sameDeviceOnly: view.sameDeviceOnly };
    },
    async stop() {
      await status.close();
      await t.stop();
    },
  };
}

/** The `response_code` of a verified response's `redirect_uri`. */
export function responseCodeOf(body: { redirect_uri?: string }): string {
  return new URL(body.redirect_uri!).searchParams.get('response_code')!;
}
