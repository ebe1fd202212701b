/**
 * The negative cases at the verifier (docs/wallet.md "Verification steps"; OpenID4VP 1.0; the OIDF
 * verifier test plan's modules where one exists), each transaction begun as a relying party's
 * sign-in (`/auth`, the wallet page's deep link): each answer of the response_uri is a 400
 * `invalid_request` (or the test wallet refuses the request), the page's status endpoint never
 * says verified, and the relying party never receives a code.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BegunSignIn, finishSignIn, pageStatus, refreshSignIn } from './helpers/wallet/flow.js';
import { holderKey } from './helpers/wallet/issuer.js';
import { leaf } from './helpers/wallet/pki.js';
import { startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';
import { type Knobs, TestWallet } from './helpers/wallet/wallet.js';

let h: WalletHarness;
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  h = await startWalletHarness();
}, 60_000);
afterAll(async () => h?.stop());

/** Asserts that the sign-in issues no code; returns what the status endpoint said. */
const notVerified = (flow: BegunSignIn) => h.noCode(flow);

/**
 * Starts a transaction, presents with the knobs, and expects a refusal for the reason `why`
 * (matched against `error_description`, so that a case cannot pass for another check's reason).
 */
async function refused(why: RegExp, knobs: Knobs = {}, credential?: string) {
  const flow = await h.start();
  const request = await h.wallet.resolve(flow.deepLink);
  const answer = await h.wallet.present(request, credential ?? (await h.credential()), knobs);
  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringMatching(why) });
  const status = await pageStatus(flow);
  const { rp } = await notVerified(flow);
  return { flow, status, rp, answer, request };
}

describe('key binding (N1–N5, N7)', () => {
  it('N1 VP1FinalVerifierInvalidKbJwtNonce: a KB-JWT nonce other than the request’s is refused', async () => {
    const { flow, status, rp } = await refused(/key binding/, { nonce: 'the-relying-partys-oidc-nonce' });
    expect(status).toEqual({ status: 'failed', next: expect.stringMatching(/\/complete$/) });
    // The page's completion of a failed presentation: access_denied to the relying party, no code.
    expect(rp?.searchParams.get('error')).toBe('access_denied');
    expect(rp?.searchParams.get('state')).toBe(flow.state);
  });
  it('N2 InvalidKbJwtAud: an aud other than the full client_id is refused, also with the prefix stripped', async () => {
    await refused(/key binding/, { aud: 'x509_hash:someone-else' });
    const { deepLink } = await h.start();
    const stripped = new URL(deepLink).searchParams.get('client_id')!.replace(/^x509_hash:/, '');
    await refused(/key binding/, { aud: stripped });
  });
  it('N3 InvalidKbJwtSignature: a KB-JWT signed by a key other than cnf.jwk is refused', async () => {
    await refused(/key binding/, { kbKey: await holderKey() });
  });
  it('N4 KbJwtIatInPast / KbJwtIatInFuture: a KB-JWT iat 10 minutes off is refused', async () => {
    await refused(/key binding/, { kbIatOffset: -600 });
    await refused(/key binding/, { kbIatOffset: 600 });
  });
  it('N5 InvalidSdHash: a wrong sd_hash is refused', async () => {
    await refused(/key binding/, { sdHash: 'd3Jvbmctc2QtaGFzaA' });
  });
  it('N7: a presentation without KB-JWT is refused (holder binding required)', async () => {
    await refused(/key binding/, { noKb: true });
  });
});

describe('the credential (N6, N8–N12)', () => {
  it('N6 InvalidCredentialSignature: a flipped byte in the issuer signature is refused', async () => {
    await refused(/credential signature/, { tamperIssuerSignature: true });
  });
  it('N8: a tampered disclosure, a duplicate disclosure and an unreferenced disclosure are refused (RFC 9901 §7.1)', async () => {
    await refused(/disclosures/, { tamperDisclosure: true });
    await refused(/disclosures/, { duplicateDisclosure: true });
    await refused(/disclosures/, { extraDisclosure: true });
  });
  it('N9: issuer chains to a rogue CA, a self-signed issuer leaf, no x5c, an expired issuer certificate: untrusted issuer', async () => {
    await refused(
      /issuer certificate chain/,
      {},
      await h.credential({ signer: h.pki.rogueIssuer, x5c: [h.pki.rogueIssuer.b64, h.pki.rogueRoot.b64] }),
    );
    await refused(/issuer certificate chain/, {}, await h.credential({ signer: h.pki.selfSignedIssuer }));
    await refused(/issuer certificate chain/, {}, await h.credential({ x5c: null }));
    await refused(/issuer certificate chain/, {}, await h.credential({ signer: h.pki.expiredIssuer }));
    await refused(/issuer certificate chain/, {}, await h.credential({ signer: h.pki.root }));
  });
  it('N9: an iss the issuer certificate does not name, or not https, is refused', async () => {
    await refused(/iss must be an https URL/, {}, await h.credential({ iss: 'https://impostor.test' }));
    await refused(/iss must be an https URL/, {}, await h.credential({ iss: 'http://issuer.test' }));
    // A certificate of the trusted CA that names no issuer URI vouches for no iss (SD-JWT VC -13 §3.5).
    const unnamed = await leaf('Unnamed Issuer', h.pki.root);
    await refused(/iss must be an https URL/, {}, await h.credential({ signer: unnamed }));
  });
  it('N9: typ other than dc+sd-jwt is refused', async () => {
    await refused(/typ dc\+sd-jwt/, {}, await h.credential({ typ: 'JWT' }));
  });
  it('N10: an expired credential and one whose nbf is in the future are refused', async () => {
    await refused(/time claims/, {}, await h.credential({ iat: now() - 7200, exp: now() - 120 }));
    await refused(/time claims/, {}, await h.credential({ nbf: now() + 600 }));
  });
  it('N11: revoked (1) and suspended (2) status, an unreachable status list, and one signed by a rogue CA are refused', async () => {
    const uri = h.status.list('n11', h.pki.statusSigner);
    h.status.set('n11', 1, 1);
    h.status.set('n11', 2, 2);
    await refused(/status list/, {}, await h.credential({ status: { idx: 1, uri } }));
    await refused(/status list/, {}, await h.credential({ status: { idx: 2, uri } }));
    await refused(
      /status list/,
      {},
      await h.credential({ status: { idx: 3, uri: `${h.status.origin}/lists/missing` } }),
    );
    await refused(/status list/, {}, await h.credential({ status: { idx: 3, uri: 'http://127.0.0.1:1/lists/down' } }));
    const rogue = h.status.list('rogue', h.pki.rogueStatusSigner);
    await refused(/status list/, {}, await h.credential({ status: { idx: 3, uri: rogue } }));
  });
  it('N11: a status list whose sub is another URI, or whose typ is not statuslist+jwt, is refused', async () => {
    const uri = h.status.list('n11b', h.pki.statusSigner);
    h.status.tamper('n11b', { sub: `${h.status.origin}/lists/other` });
    await refused(/status list/, {}, await h.credential({ status: { idx: 0, uri } }));
    h.status.tamper('n11b', { sub: undefined, typ: 'JWT' });
    await refused(/status list/, {}, await h.credential({ status: { idx: 0, uri } }));
  });
  it('N11: a status list at a non-allowed http host is refused (SSRF guard)', async () => {
    const uri = h.status.list('n11c', h.pki.statusSigner).replace('127.0.0.1', 'localhost');
    await refused(/status list/, {}, await h.credential({ status: { idx: 0, uri } }));
  });
  it('N12: a vct not asked for, a requested claim not disclosed, and a values mismatch are refused', async () => {
    await refused(/vct is not requested/, {}, await h.credential({ vct: 'urn:eudi:pid:1' }));
    await refused(/do not satisfy the query/, { disclose: ['given_name', 'family_name'] });
    const query = {
      credentials: [
        {
          id: 'authenticator',
          format: 'dc+sd-jwt',
          meta: { vct_values: ['io.igrant.authenticator'] },
          claims: [{ path: ['email_address'], values: ['someone.else@example.test'] }],
        },
      ],
    };
    expect((await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], dcqlQuery: query })).status).toBe(200);
    try {
      await refused(/do not satisfy the query/);
    } finally {
      await h.configure({ trustedIssuerCertificates: [h.pki.root.pem], dcqlQuery: undefined });
    }
  });
});

describe('the transaction and the response (N13–N17)', () => {
  it('N13: the same response posted twice is refused the second time; a previous vp_token at a new transaction too', async () => {
    const flow = await h.start();
    const request = await h.wallet.resolve(flow.deepLink);
    const first = await h.wallet.present(request, await h.credential());
    expect(first.status).toBe(200);
    const again = await h.wallet.submit(request, first.vpToken);
    expect(again.status).toBe(400);
    expect((await finishSignIn(flow)).searchParams.get('code')).toBeTruthy();
    const next = await h.start();
    const nextRequest = await h.wallet.resolve(next.deepLink);
    const replay = await h.wallet.submit(nextRequest, first.vpToken);
    expect(replay.status).toBe(400);
    await notVerified(next);
  });
  it('N14: a wrong state, an unknown kid, a response after the TTL and one to a replaced transaction are refused', async () => {
    await refused(/state does not match/, { state: 'not-the-state' });
    const stranger = await holderKey();
    await refused(/no such transaction/, { encryptTo: { ...stranger.publicJwk, kid: 'unknown-kid' } as never });
    const flow = await h.start();
    const request = await h.wallet.resolve(flow.deepLink);
    await h.t.store.db.execute(
      sql`UPDATE wallet_transactions SET expires_at = now() - interval '1 second' WHERE interaction_uid = ${flow.uid}`,
    );
    const late = await h.wallet.present(request, await h.credential());
    expect(late.status).toBe(400);
    expect((await notVerified(flow)).status).toBe('expired');
    const old = await h.start();
    const oldRequest = await h.wallet.resolve(old.deepLink);
    const renewed = await refreshSignIn(old);
    const replaced = await h.wallet.present(oldRequest, await h.credential());
    expect(replaced.status).toBe(400);
    expect((await notVerified(renewed)).status).toBe('pending');
  });
  it('N15: a bare-string vp_token, an unknown query id and two entries for a query without multiple are refused', async () => {
    const credential = await h.credential();
    const { deepLink } = await h.start();
    const probe = await h.wallet.resolve(deepLink);
    const presentation = await h.wallet.presentation(probe, credential);
    await refused(/vp_token/, { vpToken: presentation });
    await refused(/vp_token/, { vpToken: { other: [presentation] } });
    const flow = await h.start();
    const request = await h.wallet.resolve(flow.deepLink);
    const one = await h.wallet.presentation(request, credential);
    const two = await h.wallet.submit(request, { authenticator: [one, one] });
    expect(two.status).toBe(400);
    await notVerified(flow);
  });
  it('N16: plaintext when direct_post.jwt was asked, a JWE to another key, and an enc not offered are refused', async () => {
    await refused(/direct_post.jwt was requested/, { plaintext: true });
    const stranger = await holderKey();
    await refused(/cannot be decrypted/, { encryptTo: stranger.publicJwk });
    await refused(/cannot be decrypted/, { enc: 'A192GCM' });
  });
  it('N17: the request_uri answers once (then 410), an unknown request 404; a tampered request object is refused by the wallet', async () => {
    const { deepLink } = await h.start();
    const requestUri = new URL(deepLink).searchParams.get('request_uri')!;
    const jar = await fetch(requestUri);
    expect(jar.status).toBe(200);
    const jwt = await jar.text();
    const second = await fetch(requestUri);
    expect(second.status).toBe(410);
    expect(second.headers.get('content-type')).toContain('application/json');
    expect((await fetch(`${requestUri.slice(0, -5)}xxxxx`)).status).toBe(404);
    expect((await fetch(requestUri.replace(/oidc\/[^/]+\//, 'oidc/not-an-org/'))).status).toBe(404);
    const [header, payload, signature] = jwt.split('.');
    const changed = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    changed.response_uri = 'http://127.0.0.1:9/steal';
    const tampered = `${header}.${Buffer.from(JSON.stringify(changed)).toString('base64url')}.${signature}`;
    const link = new URL(deepLink);
    link.searchParams.delete('request_uri');
    link.searchParams.set('request', tampered);
    await expect(h.wallet.resolve(link.toString())).rejects.toThrow();
    const other = await h.start();
    const distrusting = new TestWallet(h.wallet.holder, [h.pki.rogueRoot.pem]);
    await expect(distrusting.resolve(other.deepLink)).rejects.toThrow();
  });
});

describe('wallet errors and malformed posts', () => {
  it('N18: a wallet’s access_denied fails the transaction: 200 {}, the page sees failed, the relying party gets access_denied with its state (OpenID4VP 1.0 §8.5)', async () => {
    const flow = await h.start();
    const request = await h.wallet.resolve(flow.deepLink);
    const answer = await h.wallet.present(request, await h.credential(), { error: 'access_denied' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({});
    expect((await pageStatus(flow)).status).toBe('failed');
    const rp = await finishSignIn(flow);
    expect(rp.searchParams.get('error')).toBe('access_denied');
    expect(rp.searchParams.get('state')).toBe(flow.state);
    expect(rp.searchParams.get('code')).toBeNull();
  });
  it('malformed posts are 4xx JSON, never a 500: no body, JSON body, junk JWE, unknown organisation', async () => {
    const url = `${h.issuerOf()}/oid4vp/response`;
    const post = (body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': type } });
    for (const res of [
      await post(''),
      await post('response=not.a.jwe'),
      await post('response=eyJhbGciOiJub25lIn0.e30.'),
      await post('vp_token=x'),
      await post('state=unknown&vp_token=%7B%7D'),
      await post('{"state":"x"}', 'application/json'),
      await fetch(url.replace(h.orgId, 'not-an-org'), { method: 'POST', body: new URLSearchParams({ state: 'x' }) }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get('content-type')).toContain('application/json');
    }
  });

  it('the response endpoint’s limits (docs/wallet.md): response or vp_token over 200,000 characters is a 400, a body over 256 KiB a 413', async () => {
    const url = `${h.issuerOf()}/oid4vp/response`;
    const post = (body: string) =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    for (const field of ['response', 'vp_token']) {
      const res = await post(`state=x&${field}=${'a'.repeat(200_001)}`);
      expect(res.status, field).toBe(400);
      expect(await res.json(), field).toMatchObject({ error: 'invalid_request' });
    }
    // 200,000 characters pass the size check (and are then refused for what they are).
    const atLimit = await post(`state=x&vp_token=${'a'.repeat(200_000)}`);
    expect(atLimit.status).toBe(400);
    expect(((await atLimit.json()) as { error_description: string }).error_description).not.toMatch(
      /200000|must NOT have more/,
    );
    const tooLarge = await post(`state=x&filler=${'a'.repeat(256 * 1024)}`);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toContain('application/json');
  });
});
