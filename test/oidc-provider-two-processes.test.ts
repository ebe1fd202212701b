/**
 * PostgreSQL only: two servers on one PostgreSQL database serve the same OpenID Connect flow
 * (docs/decisions/0017-wallet-sign-in-provider.md "Adapter"): the interaction, session, grant,
 * code and tokens live in `oidc_provider_records`, and the cookie keys are derived from the shared
 * master secret and key ring, so any server can continue what another started. PGlite is one
 * process's embedded store, so there the test is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Context, createContext } from '../src/app/context.js';
import { buildApp } from '../src/app/server.js';
import { loadConfig } from '../src/platform/config/load.js';
import { openPostgres, type Store } from '../src/platform/db/open.js';
import { call, freePort, onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { freshStore, type ServeProcess, startServe, type TestStore } from './helpers/cli.js';
import {
  authParams,
  Browser,
  fetchWithJar,
  followToRp,
  importAcmeWithApp,
  type ProviderWorld,
  providerWorld,
  RP_CALLBACK,
} from './helpers/provider.js';

/** Where process B answers the same path process A would (same public URL, so the same issuer). */
const onB = (url: string, a: string, b: string) => url.replace(a, b);

describe.skipIf(!onPostgres)('PostgreSQL only: two servers on one PostgreSQL serve the same flow', () => {
  let s: TestAssent;
  let w: ProviderWorld;
  let b: { url: string; ctx: Context; store: Store; close(): Promise<void> };

  beforeAll(async () => {
    s = await startAssent();
    w = await providerWorld(s);
    // Server B: its own context, key-ring view and providers, on the same database, behind the same public URL.
    const port = await freePort();
    const config = loadConfig({ ...s.env, PORT: String(port), ASSENT_PUBLIC_URL: s.url });
    const store = openPostgres(s.env.DATABASE_URL!);
    const ctx = await createContext(config, store);
    const app = await buildApp(ctx, { logLevel: 'silent' });
    await app.listen({ port, host: '127.0.0.1' });
    b = {
      url: `http://127.0.0.1:${port}`,
      ctx,
      store,
      async close() {
        await app.close();
        await store.close();
      },
    };
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await s?.stop();
  });

  it('/auth on A, the page and completion on B, the resume on A, the token on B, userinfo on A', async () => {
    const browser = new Browser();
    const verifier = 'w'.repeat(43);
    const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString(
      'base64url',
    );
    const auth = await browser.request(
      `${w.acme.issuer}/auth?${new URLSearchParams(authParams({ code_challenge: challenge, code_challenge_method: 'S256' }))}`,
    );
    expect(auth.status).toBe(303);
    const uid = /\/interaction\/([^/?]+)$/.exec(auth.location!)![1]!;
    const page = await fetchWithJar(browser, onB(auth.location!, s.url, b.url));
    expect(page.status).toBe(200);
    // The wallet's request and response reach A (the deep link names the public URL): the verifier's state is in the database.
    const answer = await w.present(w.acme, page.body);
    expect(answer.status).toBe(200);
    const complete = await browser.request(onB(`${w.acme.issuer}/interaction/${uid}/complete`, s.url, b.url));
    expect(complete.status).toBe(303);
    // The resume URL names the issuer (A's public URL): A continues what B recorded.
    const callback = await followToRp(browser, complete.location!);
    const code = callback.searchParams.get('code')!;
    expect(code).toBeTruthy();
    const token = await fetch(onB(`${w.acme.issuer}/token`, s.url, b.url), {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`shop:${w.acme.shopSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: RP_CALLBACK,
        code_verifier: verifier,
      }),
    });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const info = await call(`${w.acme.issuer}/userinfo`, { token: access_token });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ sub: expect.any(String), email: 'alice.wallet@example.test' });
  });
});

describe.skipIf(!onPostgres)('PostgreSQL only: two `assent serve` processes on one PostgreSQL', () => {
  let store: TestStore;
  let a: ServeProcess;
  let bProc: ServeProcess;
  let issuer: string;
  beforeAll(async () => {
    store = await freshStore();
    const portA = await freePort();
    const publicUrl = `http://127.0.0.1:${portA}`;
    const env = { ...store.env, LOG_LEVEL: 'warn', ASSENT_PUBLIC_URL: publicUrl };
    const id = await importAcmeWithApp(store, env);
    a = await startServe({ ...env, PORT: String(portA) });
    bProc = await startServe({ ...env, PORT: String(await freePort()) });
    issuer = `${publicUrl}/v3/service/extension/oidc/${id}`;
  }, 90_000);
  afterAll(async () => {
    await a?.stop('SIGKILL');
    await bProc?.stop('SIGKILL');
    await store?.cleanup();
  });

  it('an interaction started at process A is ended at process B and resumed at A', async () => {
    const browser = new Browser();
    const pkce = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };
    const auth = await browser.request(
      `${issuer}/auth?${new URLSearchParams(authParams({ client_id: 'app', ...pkce }))}`,
    );
    expect(auth.status).toBe(303);
    const uid = /\/interaction\/([^/?]+)$/.exec(auth.location!)![1]!;
    const abort = await browser.request(`${bProc.url}${new URL(issuer).pathname}/interaction/${uid}/abort`);
    expect(abort.status).toBe(303);
    expect(abort.location!.startsWith(a.url)).toBe(true);
    const rp = await followToRp(browser, abort.location!);
    expect(rp.searchParams.get('error')).toBe('access_denied');
    expect(rp.searchParams.get('state')).toBe('st-123');
  });
});
