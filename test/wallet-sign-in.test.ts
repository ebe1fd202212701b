/**
 * Wallet sign-in end to end (docs/api.md "Authorization endpoint"; docs/wallet.md "Development and tests"; the "Done when" of
 * the wallet sign-in issue): a stock `openid-client` relying party discovers an organisation's
 * provider, sends the user agent to `/auth` with PKCE, `state` and `nonce`; the user agent follows
 * to the wallet page; the test wallet takes the page's deep link, fetches the signed request and
 * posts its presentation to the real verifier; the page polls its status and completes
 * (cross-device) or the wallet's `redirect_uri` is followed in the same cookie jar (same-device);
 * the relying party redeems the code, validates the ID token against the JWKS and reads userinfo.
 * Nothing is mocked and nothing leaves 127.0.0.1.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import {
  followToRp,
  type ProviderWorld,
  providerWorld,
  RP_CALLBACK,
  type TestOrg,
  WALLET_CLAIMS,
} from './helpers/provider.js';
import { authorizationRequest, type BegunSignIn, beginSignIn, pageStatus } from './helpers/wallet/flow.js';

let s: TestAssent;
let w: ProviderWorld;

beforeAll(async () => {
  s = await startAssent();
  w = await providerWorld(s);
}, 60_000);
afterAll(() => s?.stop());

/** The relying party's configuration by discovery: confidential `shop` (client_secret_basic) or public `app`. */
function relyingParty(org: TestOrg, kind: 'confidential' | 'public') {
  // Loopback http for the fast suite (docs/wallet.md "Development and tests"; test/wallet-https.test.ts
  // is the run over https); the ID token's JWS is checked too.
  const execute = [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks];
  return kind === 'public'
    ? oidc.discovery(new URL(org.issuer), 'app', undefined, oidc.None(), { execute })
    : oidc.discovery(new URL(org.issuer), 'shop', undefined, oidc.ClientSecretBasic(org.shopSecret), { execute });
}

/** The page's script: poll the status until the wallet has answered, then follow `next`. */
async function pollAndComplete(flow: BegunSignIn): Promise<URL> {
  for (let i = 0; i < 20; i++) {
    const { status, next } = await pageStatus(flow);
    if (next) {
      expect(status).toBe('verified');
      return followToRp(flow.browser, new URL(next, flow.issuer).href);
    }
    expect(status).toBe('pending');
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the status never left pending');
}

/**
 * One sign-in as a relying party and a person do it.
 * @returns the tokens, the verified ID token's claims, and userinfo.
 */
async function signIn(org: TestOrg, kind: 'confidential' | 'public', device: 'cross' | 'same') {
  const config = await relyingParty(org, kind);
  const { url, verifier, state, nonce } = await authorizationRequest(config);
  const flow = await beginSignIn(url);
  expect((await pageStatus(flow)).status).toBe('pending');
  const answer = await w.present(org, flow.html);
  expect(answer.status).toBe(200);
  const callback =
    device === 'cross'
      ? await pollAndComplete(flow)
      : await followToRp(flow.browser, answer.body.redirect_uri as string);
  expect(callback.searchParams.get('iss')).toBe(org.issuer);
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  // The same checks by hand: the signature from the published JWKS, iss, aud and the nonce.
  const { payload } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(`${org.issuer}/jwks`)), {
    issuer: org.issuer,
    audience: kind === 'public' ? 'app' : 'shop',
    algorithms: ['ES256'],
  });
  expect(payload.nonce).toBe(nonce);
  const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, payload.sub!);
  return { tokens, claims: payload, userinfo };
}

/** GETs an admin API path of the organisation as its Owner. */
const admin = (org: TestOrg, path: string) =>
  call(`${s.url}/v1/organizations/${org.id}${path}`, { token: org.ownerToken });

describe('a stock openid-client relying party signs an individual in through a wallet, end to end', () => {
  it('confidential client, cross-device: the page polls its status, then completes', async () => {
    const { tokens, claims, userinfo } = await signIn(w.acme, 'confidential', 'cross');
    expect(claims).toMatchObject({
      iss: w.acme.issuer,
      aud: 'shop',
      sub: expect.stringMatching(/^[0-9a-f-]{36}$/),
      acr: 'urn:assent:acr:wallet',
      amr: ['pop'],
      ...WALLET_CLAIMS,
    });
    expect(tokens.claims()!.sub).toBe(claims.sub);
    expect(userinfo).toMatchObject({ sub: claims.sub, ...WALLET_CLAIMS });
  });

  it('public client with PKCE, same-device: the wallet’s redirect_uri in the same cookie jar completes without polling', async () => {
    const { claims, userinfo } = await signIn(w.acme, 'public', 'same');
    expect(claims).toMatchObject({ iss: w.acme.issuer, aud: 'app', ...WALLET_CLAIMS });
    expect(userinfo).toMatchObject({ sub: claims.sub, email: WALLET_CLAIMS.email, email_verified: true });
  });

  it('a second sign-in of the same credential is the same individual, subscribed to the organisation, with wallet.sign-in audited', async () => {
    const first = await signIn(w.acme, 'confidential', 'cross');
    const second = await signIn(w.acme, 'public', 'same');
    expect(second.claims.sub).toBe(first.claims.sub);
    const users = await admin(w.acme, '/users?limit=100');
    expect(users.status).toBe(200);
    const mine = (users.body.Users as { ID: string; Email: string; Name: string }[]).filter(
      (u) => u.ID === first.claims.sub,
    );
    expect(mine).toEqual([expect.objectContaining({ ID: first.claims.sub, Email: WALLET_CLAIMS.email })]);
    const log = await admin(w.acme, '/audit-log?limit=100');
    const signIns = (log.body.Entries as { Action: string; Detail: Record<string, unknown> }[]).filter(
      (e) => e.Action === 'wallet.sign-in' && e.Detail.userId === first.claims.sub,
    );
    expect(signIns.map((e) => e.Detail.clientId)).toEqual(expect.arrayContaining(['shop', 'app']));
    expect(JSON.stringify(signIns)).not.toContain(WALLET_CLAIMS.email);
  });

  it('two organisations: distinct issuers, verifier keys and trusted credential issuers; neither accepts the other’s credential or callback', async () => {
    const atBeta = await signIn(w.beta, 'confidential', 'cross');
    expect(atBeta.claims).toMatchObject({ iss: w.beta.issuer, aud: 'shop', ...WALLET_CLAIMS });
    const atAcme = await signIn(w.acme, 'confidential', 'cross');
    // Another organisation, another individual: accounts are per (organisation, credential issuer).
    expect(atBeta.claims.sub).not.toBe(atAcme.claims.sub);
    expect((await admin(w.beta, '/users?limit=100')).body.Users.map((u: { ID: string }) => u.ID)).toContain(
      atBeta.claims.sub,
    );
    const [acmeWallet, betaWallet] = [await admin(w.acme, '/wallet'), await admin(w.beta, '/wallet')];
    expect(acmeWallet.body.verifierClientId).toMatch(/^x509_hash:/);
    expect(betaWallet.body.verifierClientId).not.toBe(acmeWallet.body.verifierClientId);
    // Beta trusts only its own issuer: acme's credential is refused there and no code is issued.
    const config = await relyingParty(w.beta, 'confidential');
    const flow = await beginSignIn(
      oidc.buildAuthorizationUrl(config, { redirect_uri: RP_CALLBACK, scope: 'openid', state: 's', nonce: 'n' }),
    );
    const answer = await w.wallet.present(await w.wallet.resolve(flow.deepLink), w.acme.credential);
    expect(answer.status).toBe(400);
    expect((await pageStatus(flow)).status).toBe('failed');
    // Acme's relying party refuses a callback that beta's provider issued (RFC 9207 iss).
    const acmeRp = await relyingParty(w.acme, 'confidential');
    const betaCallback = new URL(`${RP_CALLBACK}?code=x&state=s&iss=${encodeURIComponent(w.beta.issuer)}`);
    const refused = await oidc.authorizationCodeGrant(acmeRp, betaCallback, { expectedState: 's' }).catch((e) => e);
    expect(refused.cause?.message).toBe('unexpected "iss" (issuer) response parameter value');
  });
});
