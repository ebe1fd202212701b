/**
 * Wallet sign-in end to end over HTTPS, as production runs it (docs/wallet.md "Development and
 * tests": the one run over HTTPS). `assent serve` runs as a child process (so no other file's
 * process-wide `allowInsecureUrls` can leak in: the suite shares module state, `isolate: false`)
 * with `ASSENT_PUBLIC_URL=https://localhost:{port}` behind a TLS-terminating reverse proxy whose
 * certificate a test CA made in this run issued; the organisation, its wallet settings and a
 * confidential relying party come from `assent import`. The stock openid-client relying party, the
 * user agent and the test wallet reach it only over https trusting that CA (test/helpers/tls.ts
 * refuses any http URL), and nothing enables `allowInsecureUrls` here. The status list stays on
 * loopback http (ASSENT_WALLET_ALLOW_HTTP_HOSTS): it is the verifier's own outbound fetch, not part
 * of the wallet's path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/assent.js';
import { freshStore, runCli, type ServeProcess, startServe, type TestStore, writeFile } from './helpers/cli.js';
import { authParams, Browser, followToRp, RP_CALLBACK, WALLET_CLAIMS } from './helpers/provider.js';
import { waitFor } from './helpers/receiver.js';
import { startTlsProxy, type TlsProxy, trustingFetch } from './helpers/tls.js';
import { authorizationRequest, beginSignIn, pageStatus } from './helpers/wallet/flow.js';
import { holderKey, issue } from './helpers/wallet/issuer.js';
import { createPki, leaf, selfSigned, type TestPki } from './helpers/wallet/pki.js';
import { type StatusServer, startStatusServer } from './helpers/wallet/status-server.js';
import { TestWallet } from './helpers/wallet/wallet.js';

/** The import file: one organisation trusting `pki.root`, with a confidential client `shop`. */
const importFile = (pki: TestPki) => ({
  organisations: [
    {
      key: 'acme',
      name: 'Acme',
      admins: [{ username: 'owner@acme.example', password: 'owner-passphrase', roles: ['owner'] }],
      oidcClients: [{ clientId: 'shop', name: 'Web shop', public: false, redirectUris: [RP_CALLBACK] }],
      wallet: {
        generateVerifierKey: true,
        trustedIssuerCertificates: [pki.root.pem],
        claimMapping: { email: ['email_address'], given_name: ['given_name'] },
      },
    },
  ],
});

/** An `assent import` then `assent serve` on a fresh store, as an operator deploys it. */
async function deploy(pki: TestPki, env: Record<string, string>) {
  const store = await freshStore();
  const all = { ...store.env, LOG_LEVEL: 'warn', ASSENT_WALLET_ALLOW_HTTP_HOSTS: '127.0.0.1', ...env };
  const imported = await runCli(['import', writeFile(scratch, `import-${Date.now()}.json`, importFile(pki))], all);
  if (imported.code !== 0) throw new Error(`assent import: ${imported.stderr}`);
  const acme = JSON.parse(imported.stdout).organisations.acme;
  return { store, serve: await startServe(all), orgId: acme.id as string, secret: acme.oidcClients.shop.clientSecret };
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'assent-https-'));
let pki: TestPki;
let status: StatusServer;
let store: TestStore;
let serve: ServeProcess;
let proxy: TlsProxy;
/** The one way this file's parties reach the server: https, trusting only the test TLS CA. */
let httpsFetch: typeof fetch;
let issuer: string;
let secret: string;
let wallet: TestWallet;
let credential: string;

beforeAll(async () => {
  const holder = await holderKey();
  [pki, status] = await Promise.all([createPki(), startStatusServer()]);
  const tlsCa = await selfSigned('Test TLS CA');
  const tlsCert = await leaf('localhost', tlsCa, { dns: 'localhost', ip: '127.0.0.1' });
  const port = await freePort();
  const publicUrl = `https://localhost:${port}`;
  let orgId: string;
  ({ store, serve, orgId, secret } = await deploy(pki, {
    ASSENT_PUBLIC_URL: publicUrl,
    ASSENT_TRUST_PROXY: 'true',
    // The access log (one line per request, with its URL) is read by the same-device test.
    LOG_LEVEL: 'info',
  }));
  proxy = await startTlsProxy(port, tlsCert, serve.url);
  issuer = `${proxy.origin}/v3/service/extension/oidc/${orgId}`;
  httpsFetch = trustingFetch(tlsCa.pem);
  wallet = new TestWallet(holder, [], httpsFetch);
  credential = await issue({
    holder,
    signer: pki.issuer,
    status: { idx: 3, uri: status.list('https', pki.statusSigner) },
  });
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await serve?.stop();
  await store?.cleanup();
  await status?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** The relying party: stock openid-client by discovery over https, `client_secret_basic`. */
const relyingParty = () =>
  oidc.discovery(new URL(issuer), 'shop', undefined, oidc.ClientSecretBasic(secret), {
    [oidc.customFetch]: (url, options) => httpsFetch(url, options as RequestInit),
    execute: [oidc.enableNonRepudiationChecks],
  });

/** Every string in `value` (deeply) that looks like an absolute URL. */
const urlsIn = (value: unknown): string[] =>
  typeof value === 'string'
    ? /^[a-z][a-z0-9+.-]*:\/\//i.test(value)
      ? [value]
      : []
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(urlsIn)
      : [];

describe('wallet sign-in over HTTPS: assent serve behind a TLS-terminating proxy, no insecure URLs allowed', () => {
  it('a stock openid-client relying party signs an individual in through the test wallet, over https only', async () => {
    const config = await relyingParty();
    const { url: auth, verifier, state, nonce } = await authorizationRequest(config);
    expect(auth.href.startsWith(`${issuer}/auth?`)).toBe(true);
    const flow = await beginSignIn(auth, new Browser(httpsFetch));
    // The deep link's request_uri and the request object's response_uri are https under the public URL.
    const requestUri = new URL(flow.deepLink).searchParams.get('request_uri')!;
    expect(requestUri).toMatch(new RegExp(`^${issuer}/oid4vp/request/[^/]+$`));
    const request = await wallet.resolve(flow.deepLink);
    expect(request.payload.response_uri).toBe(`${issuer}/oid4vp/response`);
    const answer = await wallet.present(request, credential);
    expect(answer.status).toBe(200);
    expect(answer.body.redirect_uri).toMatch(new RegExp(`^${issuer}/interaction/${flow.uid}/wallet-return\\?`));
    expect((await pageStatus(flow)).status).toBe('verified');
    expect(status.fetches.get('https')).toBeGreaterThanOrEqual(1);
    // Same-device: the wallet's redirect_uri in the browser that opened /auth.
    const callback = await followToRp(flow.browser, answer.body.redirect_uri);
    expect(callback.searchParams.get('iss')).toBe(issuer);
    // The access log has the return's line, without its response_code: a bearer secret of this
    // sign-in, which a log reader could otherwise complete (docs/wallet.md "The sign-in page").
    const responseCode = new URL(answer.body.redirect_uri).searchParams.get('response_code')!;
    // The child's log reaches us through a pipe: wait for the line rather than assume it is there.
    const returns = await waitFor(
      async () =>
        serve
          .stdout()
          .split('\n')
          .filter((line) => line.includes(`/interaction/${flow.uid}/wallet-return`)),
      (lines) => lines.length > 0,
    );
    expect(returns.length).toBeGreaterThan(0);
    for (const line of returns) expect(line).toContain('response_code=[redacted]');
    expect(serve.stdout() + serve.stderr()).not.toContain(responseCode);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    // The same checks by hand: the signature from the published JWKS, iss, aud and the nonce.
    const jwks = await (await httpsFetch(`${issuer}/jwks`)).json();
    const { payload } = await jwtVerify(tokens.id_token!, createLocalJWKSet(jwks), {
      issuer,
      audience: 'shop',
      algorithms: ['ES256'],
    });
    expect(payload).toMatchObject({ iss: issuer, aud: 'shop', nonce, acr: 'urn:assent:acr:wallet', ...WALLET_CLAIMS });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, payload.sub!);
    expect(userinfo).toMatchObject({ sub: payload.sub, ...WALLET_CLAIMS });
  });

  it('with an https public URL, discovery, the request object and the cookies carry only https (no downgrade of request_uri or response_uri)', async () => {
    const discovery = await (await httpsFetch(`${issuer}/.well-known/openid-configuration`)).json();
    expect(discovery.issuer).toBe(issuer);
    const urls = urlsIn(discovery);
    expect(urls.length).toBeGreaterThan(4);
    for (const url of urls) expect(url.startsWith(`${issuer}/`) || url === issuer, url).toBe(true);
    const auth = await httpsFetch(`${issuer}/auth?${new URLSearchParams(authParams())}`, { redirect: 'manual' });
    expect(auth.status).toBe(303);
    // At an https public URL the interaction cookies are Secure: never sent over http.
    const cookies = auth.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) expect(cookie, cookie).toMatch(/;\s*secure/i);
    const flow = await beginSignIn(`${issuer}/auth?${new URLSearchParams(authParams())}`, new Browser(httpsFetch));
    const requestObject = await httpsFetch(new URL(flow.deepLink).searchParams.get('request_uri')!);
    expect(requestObject.status).toBe(200);
    expect(requestObject.headers.get('content-type')).toContain('application/oauth-authz-req+jwt');
    const claims = decodeJwt(await requestObject.text());
    expect(claims.response_uri).toBe(`${issuer}/oid4vp/response`);
    for (const url of urlsIn(claims)) expect(url, url).toMatch(/^https:\/\//);
  });

  it('a forged Host (forwarded as X-Forwarded-Host) cannot move discovery’s endpoints, where the relying party sends its secret and code', async () => {
    const discovery = `${issuer}/.well-known/openid-configuration`;
    const honest = await (await httpsFetch(discovery)).json();
    const forged = await (await httpsFetch(discovery, { headers: { host: 'evil.test' } })).json();
    expect(forged.token_endpoint).toBe(`${issuer}/token`);
    expect(forged).toEqual(honest);
  });
});

describe('a plain-http public URL at a non-loopback host', () => {
  it('wallet sign-in refuses to start: a request_uri or response_uri over http could be read or rewritten on the network', async () => {
    const { store: plainStore, serve: plain, orgId } = await deploy(pki, { ASSENT_PUBLIC_URL: 'http://assent.test' });
    try {
      const browser = new Browser();
      const auth = await browser.request(
        `${plain.url}/v3/service/extension/oidc/${orgId}/auth?${new URLSearchParams(authParams())}`,
      );
      expect(auth.status).toBe(303);
      const page = await browser.request(`${plain.url}${new URL(auth.location!).pathname}`);
      // The page's "wallet sign-in unavailable" answer, not a 500 and not a QR code.
      expect(page.status).toBe(404);
      expect(page.body).toContain('Wallet sign-in unavailable');
      expect(page.body).not.toContain('data-deeplink');
      expect(page.body).not.toContain('http://assent.test');
    } finally {
      await plain.stop();
      await plainStore.cleanup();
    }
  }, 90_000); // spawns `assent import` and `assent serve`: seconds each on a loaded 2-core machine
});
