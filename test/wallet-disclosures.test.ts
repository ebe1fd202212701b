/**
 * The disclosures of a presentation checked by Assent itself (RFC 9901 §7.1; SD-JWT VC,
 * draft-ietf-oauth-sd-jwt-vc, "Claims"), and the `error_description` naming each check that failed
 * (docs/wallet.md "Verification steps"). Credentials an issuer library would not make are signed by
 * hand (`issueRaw`) under the trusted test issuer; each transaction is a relying party's sign-in,
 * and a refused one never gives the relying party a code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishSignIn } from './helpers/wallet/flow.js';
import { ALICE, basePayload, disclosure, issueRaw } from './helpers/wallet/issuer.js';
import { responseCodeOf, startWalletHarness, type WalletHarness } from './helpers/wallet/setup.js';
import type { Knobs } from './helpers/wallet/wallet.js';

let h: WalletHarness;

beforeAll(async () => {
  h = await startWalletHarness();
}, 60_000);
afterAll(async () => h?.stop());

/** Presents `credential` in a new sign-in; expects 400 with exactly `description`, no code. */
async function refusedWith(description: string, credential: string, knobs: Knobs = {}) {
  const flow = await h.start();
  const request = await h.wallet.resolve(flow.deepLink);
  const answer = await h.wallet.present(request, credential, knobs);
  expect(answer.body).toMatchObject({ error: 'invalid_request', error_description: description });
  expect(answer.status).toBe(400);
  await h.noCode(flow);
}

/** Presents `credential` in a new sign-in, same-device, and returns the ID token's claims. */
async function signedIn(credential: string) {
  const flow = await h.start();
  const request = await h.wallet.resolve(flow.deepLink);
  const answer = await h.wallet.present(request, credential);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return h.redeem(await finishSignIn(flow, responseCodeOf(answer.body)));
}

const holder = () => h.wallet.holder;

/** A credential whose top-level `_sd` lists `disclosures`' digests (plus `extraDigests`), with `plain` claims. */
const credentialWith = (
  disclosures: { encoded: string; digest: string }[],
  plain: Record<string, unknown> = {},
  extraDigests: string[] = [],
) =>
  issueRaw(
    h.pki.issuer,
    { ...basePayload(holder()), ...plain, _sd: [...disclosures.map((d) => d.digest), ...extraDigests] },
    disclosures.map((d) => d.encoded),
  );

describe('RFC 9901 §7.1: a claim is disclosed once, under a name that is not already there', () => {
  it('an honest hand-made credential (disclosed claims, an array with a disclosed element) signs in with its own e-mail', async () => {
    const email = disclosure('email_address', ALICE.email_address);
    const element = disclosure('fr');
    const nationalities = disclosure('nationalities', ['de', { '...': element.digest }]);
    const credential = await issueRaw(
      h.pki.issuer,
      { ...basePayload(holder()), _sd: [email.digest, nationalities.digest] },
      [email.encoded, nationalities.encoded, element.encoded],
    );
    expect((await signedIn(credential)).email).toBe(ALICE.email_address);
  });

  it('two disclosures of email_address are refused, whichever comes first: the attacker’s address never signs in', async () => {
    const honest = disclosure('email_address', ALICE.email_address);
    const attacker = disclosure('email_address', 'attacker@example.org');
    for (const order of [
      [honest, attacker],
      [attacker, honest],
    ])
      await refusedWith('disclosures: a disclosure names a claim that already exists', await credentialWith(order));
  });

  it('a disclosure of a claim that is already plaintext at its level is refused', async () => {
    const attacker = disclosure('email_address', 'attacker@example.org');
    await refusedWith(
      'disclosures: a disclosure names a claim that already exists',
      await credentialWith([attacker], { email_address: ALICE.email_address }),
    );
  });

  it('a disclosure that names the claim _sd or ... is refused', async () => {
    await refusedWith(
      'disclosures: a disclosure may not name the claim _sd',
      await credentialWith([disclosure('_sd', [])]),
    );
    await refusedWith(
      'disclosures: a disclosure may not name the claim ...',
      await credentialWith([disclosure('...', 'x')]),
    );
  });

  it('a digest that appears more than once is refused (one disclosure counted twice)', async () => {
    const email = disclosure('email_address', ALICE.email_address);
    await refusedWith(
      'disclosures: a digest appears more than once',
      await credentialWith([email], {}, [email.digest]),
    );
  });
});

describe('SD-JWT VC "Claims": iss, nbf, exp, cnf, vct and status are never selectively disclosable', () => {
  it('a disclosed vct (the signed one left out) is refused: it cannot choose the credential type', async () => {
    const { vct: _, ...withoutVct } = basePayload(holder());
    const vct = disclosure('vct', 'io.igrant.authenticator');
    const email = disclosure('email_address', ALICE.email_address);
    const credential = await issueRaw(h.pki.issuer, { ...withoutVct, _sd: [vct.digest, email.digest] }, [
      vct.encoded,
      email.encoded,
    ]);
    await refusedWith('disclosures: vct must not be selectively disclosable', credential);
  });

  it('a disclosed iss, nbf, exp, cnf or status is refused, also beside a plaintext one', async () => {
    const values: Record<string, unknown> = {
      iss: 'https://issuer.test',
      nbf: Math.floor(Date.now() / 1000) - 10,
      exp: Math.floor(Date.now() / 1000) + 60,
      cnf: { jwk: holder().publicJwk },
      status: { status_list: { idx: 0, uri: 'https://status.test/1' } },
      vct: 'io.igrant.authenticator',
    };
    for (const [name, value] of Object.entries(values))
      await refusedWith(
        `disclosures: ${name} must not be selectively disclosable`,
        await credentialWith([disclosure(name, value)]),
      );
  });
});

describe('error_description names the check that failed', () => {
  it('a KB-JWT with alg none', async () => {
    await refusedWith('key binding JWT must be typ kb+jwt, alg ES256', await h.credential(), { kbAlgNone: true });
  });

  it('a credential without cnf', async () => {
    await refusedWith('cnf.jwk is missing', await h.credential({ noCnf: true }));
  });

  it('a credential without iss', async () => {
    const { iss: _, ...withoutIss } = basePayload(holder());
    const email = disclosure('email_address', ALICE.email_address);
    await refusedWith(
      'iss is missing',
      await issueRaw(h.pki.issuer, { ...withoutIss, _sd: [email.digest] }, [email.encoded]),
    );
  });

  it('a status index beyond the status list, and a malformed status reference', async () => {
    const uri = h.status.list('range', h.pki.statusSigner, 16);
    await refusedWith('status list: the index is out of range', await h.credential({ status: { idx: 1000, uri } }));
    await refusedWith(
      'status list: the credential’s status reference is malformed',
      await h.credential({ status: { idx: -1, uri } }),
    );
  });

  it('a bad issuer signature still says so', async () => {
    await refusedWith('credential signature is invalid', await h.credential(), { tamperIssuerSignature: true });
  });
});
