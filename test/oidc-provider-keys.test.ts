/**
 * Key rotation at the organisations' OpenID providers (docs/decisions/0017-wallet-sign-in-provider.md
 * "Keys"; docs/decisions/0002-signing-key-rotation.md): after a rotation new ID tokens carry the new
 * key's `kid`, /jwks publishes both keys, and an interaction cookie set before the rotation still
 * works (the cookie keys follow the ring, the previous one still verifies).
 */
import { createHmac } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxTokenTtl, rotateSigningKey } from '../src/identity/tokens/keys.js';
import { call, freePort, startAssent, type TestAssent } from './helpers/assent.js';
import { freshStore, runCli, type ServeProcess, startServe, type TestStore } from './helpers/cli.js';
import {
  authParams,
  Browser,
  fetchWithJar,
  followToRp,
  importAcmeWithApp,
  openWalletPage,
  type ProviderWorld,
  providerWorld,
  RP_CALLBACK,
  type TestOrg,
} from './helpers/provider.js';

/**
 * The test wallet answers the wallet page (`page`, its HTML) of `uid` at acme, the browser completes
 * and the relying party redeems the code; returns the ID token.
 */
async function finish(w: ProviderWorld, browser: Browser, uid: string, page: string, verifier = 'v'.repeat(43)) {
  expect((await w.present(w.acme, page)).status).toBe(200);
  const callback = await followToRp(browser, `${w.acme.issuer}/interaction/${uid}/complete`);
  const res = await fetch(`${w.acme.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`shop:${w.acme.shopSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: RP_CALLBACK,
      code_verifier: verifier,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id_token: string }).id_token;
}

/** PKCE S256 parameters of the fixed verifier `v…v` used by `finish`. */
const PKCE = {
  code_challenge: Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('v'.repeat(43)))).toString(
    'base64url',
  ),
  code_challenge_method: 'S256',
};

async function verifies(idToken: string, org: Pick<TestOrg, 'issuer'>) {
  const jwks = createRemoteJWKSet(new URL(`${org.issuer}/jwks`));
  return jwtVerify(idToken, jwks, { issuer: org.issuer, audience: 'shop', algorithms: ['ES256'] });
}

describe('key rotation in a serving process', () => {
  let s: TestAssent;
  let w: ProviderWorld;
  beforeAll(async () => {
    s = await startAssent();
    w = await providerWorld(s);
  }, 60_000);
  afterAll(() => s?.stop());

  it('after a rotation new ID tokens carry the new kid, /jwks lists both, and an interaction cookie set before it still works', async () => {
    const oldKid = (await s.ctx.keys.signingKey()).kid;
    const earlier = new Browser();
    const before = await openWalletPage(earlier, w.acme, authParams(PKCE));
    const first = await finish(w, earlier, before.uid, before.res.body);
    expect(decodeProtectedHeader(first).kid).toBe(oldKid);

    const pending = new Browser();
    const opened = await openWalletPage(pending, w.acme, authParams(PKCE));
    expect(opened.res.status).toBe(200);

    // What `assent keys rotate` does, then what its NOTIFY makes a serving process do.
    const newKid = await rotateSigningKey(s.store.db, s.ctx.master, maxTokenTtl(s.config));
    await s.ctx.keys.reload();

    const jwks = await call(`${w.acme.issuer}/jwks`);
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual([newKid, oldKid]);

    // The cookie signed before the rotation still opens its interaction; the code's ID token has the new kid.
    const idToken = await finish(w, pending, opened.uid, opened.res.body);
    expect(decodeProtectedHeader(idToken).kid).toBe(newKid);
    await verifies(idToken, w.acme);
    // A token signed before the rotation still verifies against the published set.
    await verifies(first, w.acme);

    // Cookies set from now on are signed with the new cookie key (keygrip: HMAC-SHA1 of `name=value`).
    const fresh = new Browser();
    await openWalletPage(fresh, w.acme, authParams(PKCE));
    const signed = `_interaction=${fresh.cookies.get('_interaction')}`;
    const sig = (kid: string) =>
      createHmac('sha1', s.ctx.master.derivedKey(`oidc-cookie ${w.acme.id} ${kid}`).toString('base64url'))
        .update(signed)
        .digest('base64url');
    expect(fresh.cookies.get('_interaction.sig')).toBe(sig(newKid));
    expect(fresh.cookies.get('_interaction.sig')).not.toBe(sig(oldKid));
  });
});

describe('`assent keys rotate` against a running `assent serve`', () => {
  let store: TestStore;
  let serve: ServeProcess;
  let org: Pick<TestOrg, 'id' | 'issuer'>;
  beforeAll(async () => {
    store = await freshStore();
    const env = { ...store.env, PORT: String(await freePort()), LOG_LEVEL: 'warn' };
    const id = await importAcmeWithApp(store, env);
    serve = await startServe(env);
    org = { id, issuer: `${serve.url}/v3/service/extension/oidc/${id}` };
    Object.assign(store.env, env);
  }, 90_000);
  afterAll(async () => {
    await serve?.stop('SIGKILL');
    await store?.cleanup();
  });

  it('the provider publishes the new key at once, and an interaction started before still ends', async () => {
    const browser = new Browser();
    const auth = await browser.request(
      `${org.issuer}/auth?${new URLSearchParams(authParams({ client_id: 'app', ...PKCE }))}`,
    );
    expect(auth.status).toBe(303);
    const uid = /\/interaction\/([^/?]+)$/.exec(auth.location!)![1]!;
    const oldKids = (await call(`${org.issuer}/jwks`)).body.keys.map((k: { kid: string }) => k.kid);

    const rotated = await runCli(['keys', 'rotate'], store.env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKid = JSON.parse(rotated.stdout).kid as string;
    let kids: string[] = [];
    for (let i = 0; i < 30 && kids[0] !== newKid; i++) {
      await new Promise((r) => setTimeout(r, 100));
      kids = (await call(`${org.issuer}/jwks`)).body.keys.map((k: { kid: string }) => k.kid);
    }
    expect(kids).toEqual([newKid, ...oldKids]);

    // The interaction cookie was signed with the previous cookie key: the rebuilt provider still accepts it.
    const rp = await followToRp(browser, `${org.issuer}/interaction/${uid}/abort`);
    expect(rp.searchParams.get('error')).toBe('access_denied');
    expect(rp.searchParams.get('state')).toBe('st-123');
    // Without that cookie the same step is refused: the acceptance above was the cookie's.
    expect((await fetchWithJar(new Browser(), `${org.issuer}/interaction/${uid}/abort`)).status).toBe(400);
  });
});
