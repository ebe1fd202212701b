/**
 * Relying parties in the import file (`oidcClients` of an organisation; docs/wallet.md "Relying
 * parties"; docs/decisions/0016-oidc-relying-parties.md) through the real `assent import`: a new
 * confidential client's secret is printed once and stored as its SHA-256; a repeated import is
 * idempotent and never rotates a secret; changes are audited with `source: "import"`; an invalid
 * file, or one that would flip `public`, is refused whole, naming the JSON path.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { freshStore, runCli, startServe, type TestStore, writeFile } from './helpers/cli.js';

type Client = { clientId: string; name: string; redirectUris: string[]; public: boolean; [k: string]: unknown };
const webShop = (): Client => ({
  clientId: 'web-shop',
  name: 'Web shop',
  redirectUris: ['https://shop.example/cb'],
  postLogoutRedirectUris: ['https://shop.example/bye'],
  public: false,
});
const iosApp = (): Client => ({
  clientId: 'ios.app',
  name: 'iOS app',
  redirectUris: ['com.example.app:/cb', 'http://127.0.0.1/cb'],
  public: true,
});
const file = (oidcClients: Client[]) => ({
  clients: [{ clientId: 'dashboard' }],
  organisations: [
    {
      key: 'shop',
      name: 'Shop',
      admins: [{ username: 'owner@shop.example', password: 'shop-owner-passphrase', roles: ['owner'] }],
      oidcClients,
    },
  ],
});

/** The stored clients and the organisation's audit entries, to tell what an import wrote. */
const SNAPSHOT = `select json_build_object(
  'clients', (select json_agg(json_build_object('id', c.client_id, 'name', c.name, 'uris', c.redirect_uris,
     'logout', c.post_logout_redirect_uris, 'public', c.public, 'hash', encode(c.secret_hash, 'hex'),
     'updated', c.updated_at) order by c.client_id) from oidc_clients c),
  'audit', (select json_agg(json_build_object('action', a.action, 'detail', a.detail) order by a.id)
     from org_audit_log a)
) as snapshot`;

let store: TestStore;
let secret: string;
let orgId: string;
const snapshot = async () =>
  (
    await store.query<{ snapshot: { clients: Record<string, unknown>[]; audit: Record<string, unknown>[] } }>(SNAPSHOT)
  )[0]!.snapshot;
const importFile = (content: unknown) =>
  runCli(['import', writeFile(store.dataDir, 'import.json', content)], store.env);

beforeAll(async () => {
  store = await freshStore();
});
afterAll(() => store?.cleanup());

describe('assent import: oidcClients', { timeout: 120_000 }, () => {
  it("prints a new confidential client's secret once, and stores only its SHA-256", async () => {
    const res = await importFile(file([webShop(), iosApp()]));
    expect(res.code, res.stderr).toBe(0);
    orgId = JSON.parse(res.stdout).organisations.shop.id;
    const printed = JSON.parse(res.stdout).organisations.shop.oidcClients;
    expect(Object.keys(printed)).toEqual(['web-shop', 'ios.app']);
    expect(printed['ios.app']).toEqual({});
    secret = printed['web-shop'].clientSecret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const { clients, audit } = await snapshot();
    expect(clients.map((c) => [c.id, c.public, c.hash])).toEqual([
      ['ios.app', true, null],
      ['web-shop', false, createHash('sha256').update(secret).digest('hex')],
    ]);
    expect(clients[1]).toMatchObject({ uris: ['https://shop.example/cb'], logout: ['https://shop.example/bye'] });
    const created = audit.filter((a) => a.action === 'oidc-client.create').map((a) => a.detail);
    expect(created).toEqual([
      {
        clientId: 'web-shop',
        fields: ['clientId', 'name', 'redirectUris', 'postLogoutRedirectUris', 'public', 'clientSecret'],
        source: 'import',
      },
      {
        clientId: 'ios.app',
        fields: ['clientId', 'name', 'redirectUris', 'postLogoutRedirectUris', 'public'],
        source: 'import',
      },
    ]);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('the same file again writes nothing and prints no secret: an existing secret is never rotated', async () => {
    const before = await snapshot();
    const res = await importFile(file([webShop(), iosApp()]));
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).organisations.shop.oidcClients).toEqual({ 'web-shop': {}, 'ios.app': {} });
    expect(await snapshot()).toEqual(before);
  });

  it('a changed entry updates the client, keeps its secret, and is audited naming the changed fields', async () => {
    const before = await snapshot();
    const res = await importFile(file([{ ...webShop(), name: 'The shop', postLogoutRedirectUris: [] }]));
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).organisations.shop.oidcClients).toEqual({ 'web-shop': {} });
    const after = await snapshot();
    // ios.app is not in this file, and is kept.
    expect(after.clients.map((c) => [c.id, c.name, c.hash])).toEqual([
      ['ios.app', 'iOS app', null],
      ['web-shop', 'The shop', before.clients[1]!.hash],
    ]);
    expect(after.audit.slice(before.audit.length)).toEqual([
      {
        action: 'oidc-client.update',
        detail: { clientId: 'web-shop', fields: ['name', 'postLogoutRedirectUris'], source: 'import' },
      },
    ]);
  });

  it('a file failing the schema is refused whole, naming each JSON path, and writes nothing', async () => {
    const before = await snapshot();
    const res = await importFile(
      file([
        { ...webShop(), clientId: 'new-one', name: 'New' },
        { ...iosApp(), clientId: 'c4', redirectUris: [] },
        { ...iosApp(), clientId: 'c5', extra: true },
        { clientId: 'c6', name: 'No flag', redirectUris: ['https://a.example/cb'] } as unknown as Client,
      ]),
    );
    expect(res.code).toBe(1);
    const at = '$.organisations[0].oidcClients';
    for (const problem of [
      `${at}[1].redirectUris: must not have fewer than 1 items`,
      `${at}[2].extra: unknown field`,
      `${at}[3]: must have required properties public`,
    ])
      expect(res.stderr).toContain(problem);
    expect(await snapshot()).toEqual(before);
  });

  it("a file breaking the admin API's rules is refused whole, naming each JSON path, and writes nothing", async () => {
    const before = await snapshot();
    const res = await importFile(
      file([
        { ...webShop(), clientId: 'new-one', name: 'New' },
        { ...webShop(), clientId: 'bad id' },
        { ...webShop(), clientId: 'c2', redirectUris: ['com.example.app:/cb'] },
        { ...iosApp(), clientId: 'c3', redirectUris: ['http://app.example/cb', 'https://a.example/#f'] },
        { ...iosApp(), clientId: 'c4', name: '  ', postLogoutRedirectUris: ['https://a.example/x '] },
        { ...webShop(), clientId: 'new-one' },
      ]),
    );
    expect(res.code).toBe(1);
    const at = '$.organisations[0].oidcClients';
    for (const problem of [
      `${at}[1].clientId: must be 1 to 100 characters`,
      `${at}[2].redirectUris[0]: a private-use scheme is allowed only for a public client`,
      `${at}[3].redirectUris[0]: http is allowed only at loopback`,
      `${at}[3].redirectUris[1]: must not have a fragment`,
      `${at}[4].name: must be 1 to 200 characters, not blank`,
      `${at}[4].postLogoutRedirectUris[0]: must not contain whitespace`,
      `${at}[5]: duplicate "new-one"`,
    ])
      expect(res.stderr).toContain(problem);
    expect(await snapshot()).toEqual(before);
  });

  it('an entry that would flip public of an existing client is refused, and nothing of the file is written', async () => {
    const before = await snapshot();
    const res = await importFile(
      file([
        { ...webShop(), clientId: 'brand-new' },
        { ...iosApp(), public: false, redirectUris: ['https://a.example/cb'] },
      ]),
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('$.organisations[0].oidcClients[1].public: cannot change for an existing client');
    expect(res.stdout).toBe('');
    expect(await snapshot()).toEqual(before);
  });

  it('the admin API lists the imported clients, never a secret', async () => {
    const server = await startServe(store.env);
    try {
      const login = await call(`${server.base}/v1.1/users/login`, {
        body: { username: 'owner@shop.example', password: 'shop-owner-passphrase' },
      });
      expect(login.status, JSON.stringify(login.body)).toBe(200);
      const res = await call(`${server.base}/organizations/${orgId}/oidc-clients`, {
        token: login.body.Token.access_token,
      });
      expect(res.status).toBe(200);
      expect(res.body.clients.map((c: { clientId: string; name: string }) => [c.clientId, c.name])).toEqual([
        ['ios.app', 'iOS app'],
        ['web-shop', 'The shop'],
      ]);
      expect(JSON.stringify(res.body)).not.toContain(secret);
    } finally {
      expect((await server.stop()).code).toBe(0);
    }
  });
});
