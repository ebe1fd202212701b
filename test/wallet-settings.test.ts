/**
 * An organisation's wallet settings (docs/wallet.md "Wallet settings"; docs/api.md "Authorization endpoint") through the admin
 * API `{base}/organizations/{organizationID}/wallet` and `assent import`: who may call; every bad
 * field is a 400 naming it and changes nothing; the verifier's private key is write-only, stored
 * sealed and never answered or audited; a generated key is pinned by x509_hash; deleting the
 * settings stops wallet sign-in; changes are audited.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { freshStore, runCli, type TestStore, writeFile } from './helpers/cli.js';
import { Browser } from './helpers/oidc.js';
import { fetchWithJar, parsePage, RP_CALLBACK } from './helpers/provider.js';
import { signInParams } from './helpers/wallet/flow.js';
import { createPki, type TestPki } from './helpers/wallet/pki.js';

let t: TestAssent;
let pki: TestPki;
let orgId: string;
const tokens: Record<string, string> = {};
const url = () => `${t.base}/organizations/${orgId}/wallet`;
const put = (body: unknown, token = tokens.owner) => call(url(), { method: 'PUT', token, body });
const valid = () => ({ generateVerifierKey: true, trustedIssuerCertificates: [pki.root.pem] });
const storedRow = async () =>
  rowsOf<Record<string, unknown>>(
    await t.store.db.execute(sql`SELECT * FROM wallet_settings WHERE org_id = ${orgId}`),
  )[0];
/** A relying party's `/auth` in a fresh user agent, followed to the wallet page: its answer. */
async function walletPage() {
  const browser = new Browser();
  const issuer = `${t.url}/v3/service/extension/oidc/${orgId}`;
  const auth = await browser.request(`${issuer}/auth?${new URLSearchParams(signInParams('web-shop'))}`);
  expect(auth.status).toBe(303);
  return fetchWithJar(browser, auth.location!);
}
const audit = async () =>
  (await call(`${t.base}/organizations/${orgId}/audit-log?limit=100`, { token: tokens.owner })).body.Entries as {
    Action: string;
    ActorEmail: string;
    Detail: Record<string, unknown>;
  }[];

beforeAll(async () => {
  [t, pki] = await Promise.all([startAssent({ ASSENT_WALLET_PER_IP: '5' }), createPki()]);
  orgId = t.ids.organisations.acme!.id;
  const staff = (username: string, role: string) => ({ username, password: `${role}-only-passphrase`, roles: [role] });
  await runImport(
    t.store.db,
    {
      organisations: [
        {
          key: 'acme',
          name: 'Acme',
          admins: [
            staff('admin@acme.example', 'admin'),
            staff('dpo@acme.example', 'dpo'),
            staff('dev@acme.example', 'developer'),
          ],
        },
      ],
    },
    t.config.argon2,
    redirectUriImport,
  );
  tokens.owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  tokens.admin = (await login(t, 'admin@acme.example', 'admin-only-passphrase')).Token.access_token;
  tokens.dpo = (await login(t, 'dpo@acme.example', 'dpo-only-passphrase')).Token.access_token;
  tokens.developer = (await login(t, 'dev@acme.example', 'developer-only-passphrase')).Token.access_token;
  tokens.alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
  const rp = await call(`${t.base}/organizations/${orgId}/oidc-clients`, {
    method: 'POST',
    token: tokens.owner,
    body: { clientId: 'web-shop', name: 'Web shop', redirectUris: [RP_CALLBACK] },
  });
  expect(rp.status).toBe(201);
}, 60_000);
afterAll(async () => t?.stop());

describe('wallet settings admin API', () => {
  it('without settings: GET is 404 and the sign-in page cannot start a transaction (404 page, no QR code)', async () => {
    expect((await call(url(), { token: tokens.owner })).status).toBe(404);
    const page = await walletPage();
    expect(page.status).toBe(404);
    expect(page.body).not.toContain('data-deeplink');
  });

  it('every invalid field is a 400 naming it, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...valid(), profile: 'fapi' }, /profile: must be haip or compat/],
      [{ ...valid(), trustedIssuerCertificates: [] }, /trustedIssuerCertificates: 1 to 20/],
      [
        { ...valid(), trustedIssuerCertificates: ['not a pem'] },
        /trustedIssuerCertificates\[0\]: must hold exactly one/,
      ],
      [{ ...valid(), trustedIssuerCertificates: [pki.issuer.pem] }, /trustedIssuerCertificates\[0\]: is not a CA/],
      [{ ...valid(), dcqlQuery: { credentials: [] } }, /dcqlQuery: is not a valid DCQL query/],
      [
        {
          ...valid(),
          dcqlQuery: { credentials: [{ id: 'a', format: 'dc+sd-jwt', claims: [{ path: ['email_address'] }] }] },
        },
        /dcqlQuery.credentials\[0\].meta.vct_values: required/,
      ],
      [{ ...valid(), claimMapping: { sub: ['email_address'] } }, /claimMapping.sub: set by the provider/],
      [{ ...valid(), claimMapping: { email: [] } }, /claimMapping.email: must be a claims path/],
      [{ ...valid(), stableClaim: 'given_name' }, /stableClaim: every credential of dcqlQuery must request it/],
      [{ ...valid(), deepLinkScheme: 'https://' }, /deepLinkScheme: must be a custom scheme/],
      [{ ...valid(), responseEncryption: ['A192GCM'] }, /responseEncryption: each of A128GCM, A256GCM/],
      [{ trustedIssuerCertificates: [pki.root.pem] }, /verifierPrivateKey: required with verifierCertificateChain/],
      [{ ...valid(), verifierPrivateKey: pki.verifier.privatePem }, /generateVerifierKey: cannot be combined/],
      [
        {
          trustedIssuerCertificates: [pki.root.pem],
          verifierCertificateChain: pki.verifier.pem,
          verifierPrivateKey: pki.issuer.privatePem,
        },
        /verifierPrivateKey: does not match the public key/,
      ],
      [
        {
          trustedIssuerCertificates: [pki.root.pem],
          verifierCertificateChain: 'junk',
          verifierPrivateKey: pki.verifier.privatePem,
        },
        /verifierCertificateChain: must hold 1 to 5 PEM certificates/,
      ],
      [
        {
          trustedIssuerCertificates: [pki.root.pem],
          verifierCertificateChain: pki.verifier.pem + pki.root.pem,
          verifierPrivateKey: pki.verifier.privatePem,
        },
        /verifierCertificateChain\[0\]: is not issued by the next/,
      ],
      [
        {
          trustedIssuerCertificates: [pki.root.pem],
          verifierCertificateChain: pki.verifier.pem,
          verifierPrivateKey: 'nope',
        },
        /verifierPrivateKey: is not a PEM private key/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.Message).toMatch(message);
    }
    expect(await storedRow()).toBeUndefined();
  });

  it('only the Owner or an Admin may read, change or delete the settings', async () => {
    for (const who of ['dpo', 'developer', 'alice']) {
      expect((await call(url(), { token: tokens[who] })).status).toBe(403);
      expect((await put(valid(), tokens[who])).status).toBe(403);
      expect((await call(url(), { method: 'DELETE', token: tokens[who] })).status).toBe(403);
    }
    expect((await call(url())).status).toBe(401);
    expect((await put(valid(), tokens.admin)).status).toBe(200);
    expect((await call(url(), { token: tokens.admin })).status).toBe(200);
  });

  it('a generated key: P-256, self-signed, pinned by x509_hash; the key is sealed, never answered; defaults applied', async () => {
    const res = await put(valid());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      profile: 'haip',
      stableClaim: 'email_address',
      claimMapping: { email: ['email_address'] },
      sameDeviceOnly: false,
      deepLinkScheme: 'openid4vp://',
      responseEncryption: ['A128GCM', 'A256GCM'],
      dcqlQuery: { credentials: [{ id: 'authenticator', meta: { vct_values: ['io.igrant.authenticator'] } }] },
    });
    const leaf = new X509Certificate(res.body.verifierCertificateChain);
    expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(res.body.verifierClientId).toBe(`x509_hash:${createHash('sha256').update(leaf.raw).digest('base64url')}`);
    expect(JSON.stringify(res.body)).not.toMatch(/PRIVATE KEY|verifierPrivateKey/);
    const row = await storedRow();
    expect(String(row!.verifier_key_sealed)).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
  });

  it('a supplied key is kept by a PUT without one; the key is never in an answer or the audit log', async () => {
    const chain = pki.verifier.pem + pki.verifierRoot.pem;
    const res = await put({
      trustedIssuerCertificates: [pki.root.pem],
      verifierCertificateChain: chain,
      verifierPrivateKey: pki.verifier.privatePem,
    });
    expect(res.status).toBe(200);
    const again = await put({ trustedIssuerCertificates: [pki.root.pem], sameDeviceOnly: true });
    expect(again.status).toBe(200);
    expect(again.body.verifierClientId).toBe(res.body.verifierClientId);
    expect(again.body.sameDeviceOnly).toBe(true);
    const page = await walletPage();
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('<svg'); // sameDeviceOnly: no QR code to scan on another device
    expect(decodeURIComponent(parsePage(page.body).deepLink!)).toContain(res.body.verifierClientId);
    const entries = await audit();
    const updates = entries.filter((e) => e.Action === 'wallet.settings.update');
    expect(updates[0]!.Detail).toEqual({ fields: ['sameDeviceOnly'] });
    expect([updates[0]!.ActorEmail, updates[1]!.ActorEmail]).toEqual(['owner@acme.example', 'owner@acme.example']);
    expect(updates[1]!.Detail.fields).toEqual(
      expect.arrayContaining(['verifierCertificateChain', 'verifierPrivateKey']),
    );
    const privateBody = pki.verifier.privatePem.split('\n')[1]!;
    expect(JSON.stringify(entries)).not.toContain(privateBody);
    const unchanged = entries.length;
    expect((await put({ trustedIssuerCertificates: [pki.root.pem], sameDeviceOnly: true })).status).toBe(200);
    expect((await audit()).length).toBe(unchanged);
  });

  it('deepLinkScheme: a scheme that could run script, open local content or go in clear text is a 400 naming the field, and changes nothing', async () => {
    expect((await put({ ...valid(), deepLinkScheme: 'haip-vp://' })).status).toBe(200);
    const before = await storedRow();
    for (const scheme of [
      'javascript://',
      'JavaScript://',
      'data://',
      'vbscript://',
      'file://',
      'blob:',
      'about:',
      'http://',
      'http://wallet.example/cb',
      'https://',
    ]) {
      const res = await put({ ...valid(), deepLinkScheme: scheme });
      expect(res.status, scheme).toBe(400);
      expect(res.body.Message, scheme).toMatch(/^.*deepLinkScheme: /);
    }
    expect(await storedRow()).toEqual(before);
  });

  it('deepLinkScheme: custom schemes and an https universal link are accepted; the page’s deep link uses it', async () => {
    for (const scheme of ['openid4vp://', 'haip://', 'eudi-openid4vp://', 'https://wallet.example/openid4vp']) {
      const res = await put({ ...valid(), deepLinkScheme: scheme });
      expect(res.status, scheme).toBe(200);
      expect(res.body.deepLinkScheme).toBe(scheme);
      const page = await walletPage();
      expect(parsePage(page.body).deepLink!.startsWith(`${scheme}?`), scheme).toBe(true);
    }
  });

  it('DELETE stops wallet sign-in at once, audited; a second DELETE is 404', async () => {
    expect((await call(url(), { method: 'DELETE', token: tokens.owner })).status).toBe(204);
    expect((await call(url(), { method: 'DELETE', token: tokens.owner })).status).toBe(404);
    expect((await walletPage()).status).toBe(404);
    expect((await audit())[0]!.Action).toBe('wallet.settings.delete');
  });
});

describe('the wallet endpoints are rate-limited per client IP (ASVS 5.0 V2.4.1)', () => {
  it('past ASSENT_WALLET_PER_IP requests a minute, the request and response endpoints answer 429 with Retry-After', async () => {
    const base = `${t.url}/v3/service/extension/oidc/${orgId}/oid4vp`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${base}/request/unknown-${i}`)).status);
    expect(statuses).toEqual([404, 404, 404, 404, 404]);
    const limited = await fetch(`${base}/response`, { method: 'POST', body: new URLSearchParams({ state: 'x' }) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });
});

describe('assent import: wallet', { timeout: 120_000 }, () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore();
  });
  afterAll(() => store?.cleanup());
  const file = (wallet: Record<string, unknown>) => ({
    organisations: [
      {
        key: 'shop',
        name: 'Shop',
        admins: [{ username: 'owner@shop.example', password: 'shop-owner-passphrase', roles: ['owner'] }],
        wallet,
      },
    ],
  });
  const importFile = (content: unknown) =>
    runCli(['import', writeFile(store.dataDir, 'import.json', content)], store.env);

  it('creates the settings with a generated key; a repeated import keeps the key and writes nothing', async () => {
    const first = await importFile(file({ generateVerifierKey: true, trustedIssuerCertificates: [pki.root.pem] }));
    expect(first.code, first.stderr).toBe(0);
    const printed = JSON.parse(first.stdout).organisations.shop.wallet;
    expect(printed.verifierClientId).toMatch(/^x509_hash:[A-Za-z0-9_-]{43}$/);
    const again = await importFile(file({ generateVerifierKey: true, trustedIssuerCertificates: [pki.root.pem] }));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).organisations.shop.wallet).toEqual(printed);
    const audit = await store.query<{ action: string; detail: Record<string, unknown> }>(
      `select action, detail from org_audit_log where action like 'wallet.%' order by id`,
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toMatchObject({ source: 'import' });
  });

  it('an invalid wallet entry is refused naming its JSON path, and nothing is written', async () => {
    const res = await importFile(
      file({ generateVerifierKey: true, trustedIssuerCertificates: [pki.root.pem], profile: 'x' }),
    );
    expect(res.code).toBe(1);
    expect(res.stderr + res.stdout).toContain('$.organisations[0].wallet.profile: must be haip or compat');
    const nokey = await importFile({
      organisations: [{ key: 'other', name: 'Other', wallet: { trustedIssuerCertificates: [pki.root.pem] } }],
    });
    expect(nokey.code).toBe(1);
    expect(nokey.stderr + nokey.stdout).toContain('$.organisations[0].wallet.verifierPrivateKey: required');
    const secret = await importFile(
      file({
        trustedIssuerCertificates: [pki.root.pem],
        verifierCertificateChain: pki.verifier.pem,
        verifierPrivateKey: pki.verifier.privatePem,
      }),
    );
    expect(secret.code).toBe(1);
    expect(secret.stderr + secret.stdout).toContain(
      '$.organisations[0].wallet.verifierPrivateKey: an import file carries no secret',
    );
    expect(await store.query(`select 1 from organisations where key = 'other'`)).toHaveLength(0);
  });

  it('a dangerous deepLinkScheme is refused naming its JSON path, and nothing is written', async () => {
    for (const scheme of ['javascript://', 'data://', 'file://', 'blob:', 'http://']) {
      const res = await importFile({
        organisations: [
          {
            key: 'schemes',
            name: 'Schemes',
            wallet: { generateVerifierKey: true, trustedIssuerCertificates: [pki.root.pem], deepLinkScheme: scheme },
          },
        ],
      });
      expect(res.code, scheme).toBe(1);
      expect(res.stderr + res.stdout, scheme).toContain('$.organisations[0].wallet.deepLinkScheme: ');
    }
    expect(await store.query(`select 1 from organisations where key = 'schemes'`)).toHaveLength(0);
  });
});
