/**
 * Shared set-up of the wallet verifier tests (docs/wallet.md "Development and tests"): a test
 * server allowed to fetch status lists from 127.0.0.1, the PKI, the status-list server, the
 * organisation's wallet settings and a relying party `web-shop` registered through the admin API;
 * each transaction begins as a relying party's sign-in does, `/auth` in a cookie-keeping user agent
 * up to the wallet page (test/helpers/wallet/flow.ts).
 */
import { decodeJwt } from 'jose';
import { call, login, startAssent, type TestAssent } from '../assent.js';
import { RP_CALLBACK } from '../provider.js';
import { type BegunSignIn, beginSignIn, pageStatus, signInParams, tryFinish } from './flow.js';
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
  /** The organisation's provider issuer, `{url}/v3/service/extension/oidc/{orgId}`. */
  issuerOf(orgId?: string): string;
  /**
   * Begins a sign-in of the relying party `web-shop` at an organisation (registering it through
   * the admin API with `token`, an Owner's, on first use): `/auth`, the 303, the wallet page.
   */
  start(orgId?: string, token?: string): Promise<BegunSignIn>;
  /** Redeems the code of a relying party callback at the token endpoint; returns the ID token's claims (decoded). */
  redeem(callback: URL): Promise<Record<string, any>>;
  /**
   * Asserts that the sign-in issues no code: the status endpoint does not say verified, and
   * completing it does not give the relying party a code.
   * @returns what the status endpoint said, and the relying party's callback URL when completing
   *   got there (with `error`, never `code`), else null.
   */
  noCode(b: BegunSignIn): Promise<{ status: string; rp: URL | null }>;
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
  const issuerOf = (org = orgId) => `${t.url}/v3/service/extension/oidc/${org}`;
  /** The client secret of `web-shop` at each organisation where it is registered. */
  const secrets = new Map<string, string>();
  async function register(org: string, token: string): Promise<void> {
    if (secrets.has(org)) return;
    const body = { clientId: 'web-shop', name: 'Web shop', redirectUris: [RP_CALLBACK] };
    const res = await call(`${t.base}/organizations/${org}/oidc-clients`, { method: 'POST', token, body });
    if (res.status !== 201) throw new Error(`relying party: ${res.status} ${JSON.stringify(res.body)}`);
    secrets.set(org, res.body.clientSecret);
  }
  return {
    t,
    pki,
    status,
    orgId,
    ownerToken,
    wallet,
    configure,
    credential: (opts = {}) => issue({ holder, signer: pki.issuer, ...opts }),
    issuerOf,
    async start(org = orgId, token = ownerToken) {
      await register(org, token);
      return beginSignIn(`${issuerOf(org)}/auth?${new URLSearchParams(signInParams('web-shop'))}`);
    },
    async redeem(callback) {
      const issuer = callback.searchParams.get('iss')!;
      const secret = secrets.get(issuer.slice(issuer.lastIndexOf('/') + 1))!;
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`web-shop:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code') ?? '',
          redirect_uri: RP_CALLBACK,
        }),
      });
      const tokens = (await res.json()) as { id_token?: string };
      if (res.status !== 200 || !tokens.id_token) throw new Error(`token: ${res.status} ${JSON.stringify(tokens)}`);
      return decodeJwt(tokens.id_token);
    },
    async noCode(b) {
      const { status } = await pageStatus(b);
      if (status === 'verified') throw new Error('the status endpoint says verified');
      const { rp } = await tryFinish(b);
      if (rp?.searchParams.has('code')) throw new Error('the relying party received a code');
      return { status, rp };
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
