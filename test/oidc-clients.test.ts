/**
 * Relying-party registration at an organisation's OpenID provider (docs/wallet.md "Relying parties";
 * docs/decisions/0016-oidc-relying-parties.md), through the admin API: create, list, read, update,
 * rotate, delete; who may call; another organisation's client is a 404; every validation error is a
 * 400 naming the field and stores nothing; the secret is answered once, stored as its SHA-256 only,
 * never listed; each change is in the organisation audit log without the secret.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let orgId: string;
let bravoId: string;
const tokens: Record<'owner' | 'admin' | 'dpo' | 'developer' | 'alice' | 'bravo', string> = {
  owner: '',
  admin: '',
  dpo: '',
  developer: '',
  alice: '',
  bravo: '',
};
const clients = (org = orgId) => `${t.base}/organizations/${org}/oidc-clients`;
const shop = () => ({
  clientId: 'web-shop',
  name: 'Web shop',
  redirectUris: ['https://shop.example/cb', 'http://127.0.0.1:8080/cb'],
  postLogoutRedirectUris: ['https://shop.example/bye'],
});
/** Every secret the API answered, none of which may appear anywhere else. */
const answered: string[] = [];
const sha256 = (s: string) => createHash('sha256').update(s).digest();
const storedHash = async (clientId: string) =>
  rowsOf<{ h: Buffer | Uint8Array | null }>(
    await t.store.db.execute(
      sql`SELECT secret_hash AS h FROM oidc_clients WHERE org_id = ${orgId} AND client_id = ${clientId}`,
    ),
  )[0]?.h;
const auditEntries = async () =>
  (await call(`${t.base}/organizations/${orgId}/audit-log?limit=100`, { token: tokens.owner })).body.Entries as {
    Action: string;
    ActorUserID: string;
    ActorEmail: string;
    Detail: Record<string, unknown>;
  }[];

beforeAll(async () => {
  t = await startAssent();
  orgId = t.ids.organisations.acme!.id;
  const staff = (username: string, role: 'admin' | 'dpo' | 'developer') => ({
    username,
    password: `${role}-only-passphrase`,
    roles: [role],
  });
  const acme = t.ids.organisations.acme!;
  const more = await runImport(
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
        {
          key: 'bravo',
          name: 'Bravo',
          admins: [{ username: 'owner@bravo.example', password: 'bravo-owner-passphrase', roles: ['owner'] }],
        },
      ],
    },
    t.config.argon2,
    redirectUriImport,
  );
  expect(more.organisations.acme!.id).toBe(acme.id);
  bravoId = more.organisations.bravo!.id;
  tokens.owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  tokens.admin = (await login(t, 'admin@acme.example', 'admin-only-passphrase')).Token.access_token;
  tokens.dpo = (await login(t, 'dpo@acme.example', 'dpo-only-passphrase')).Token.access_token;
  tokens.developer = (await login(t, 'dev@acme.example', 'developer-only-passphrase')).Token.access_token;
  tokens.alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
  tokens.bravo = (await login(t, 'owner@bravo.example', 'bravo-owner-passphrase')).Token.access_token;
});
afterAll(async () => t?.stop());

describe('relying-party registration', () => {
  it('every invalid registration is a 400 naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...shop(), clientId: 'web shop' }, /clientId: must be 1 to 100 characters/],
      [{ ...shop(), clientId: 'x'.repeat(101) }, /clientId: must be 1 to 100 characters/],
      [{ ...shop(), clientId: '' }, /clientId: must be 1 to 100 characters/],
      [{ ...shop(), name: '   ' }, /name: must be 1 to 200 characters, not blank/],
      [{ ...shop(), name: 'n'.repeat(201) }, /name/],
      [{ ...shop(), name: undefined }, /name/],
      [{ ...shop(), redirectUris: [] }, /redirectUris: must list 1 to 50 URIs/],
      [{ ...shop(), redirectUris: Array.from({ length: 51 }, (_, i) => `https://a.example/${i}`) }, /redirectUris/],
      [{ ...shop(), redirectUris: ['/cb'] }, /redirectUris\[0\]: must be an absolute URI/],
      [{ ...shop(), redirectUris: ['https://shop.example/cb#x'] }, /redirectUris\[0\]: must not have a fragment/],
      [{ ...shop(), redirectUris: ['https://u:p@shop.example/cb'] }, /redirectUris\[0\]: must not carry credentials/],
      [{ ...shop(), redirectUris: ['http://shop.example/cb'] }, /redirectUris\[0\]: http is allowed only at loopback/],
      [{ ...shop(), redirectUris: ['https://shop.example/cb '] }, /redirectUris\[0\]: must not contain whitespace/],
      [{ ...shop(), redirectUris: ['com.example.app:/cb'] }, /redirectUris\[0\]: a private-use scheme is allowed only/],
      [{ ...shop(), public: true, redirectUris: ['javascript:alert(1)'] }, /redirectUris\[0\]: must be https/],
      [
        { ...shop(), redirectUris: ['https://a.example/cb', 'https://a.example/cb'] },
        /redirectUris\[1\]: listed twice/,
      ],
      [{ ...shop(), postLogoutRedirectUris: ['http://shop.example/'] }, /postLogoutRedirectUris\[0\]: http is allowed/],
      [{ ...shop(), public: 'maybe' }, /public/],
    ];
    for (const [body, message] of cases) {
      const res = await call(clients(), { token: tokens.owner, body });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(res.body.Message).toMatch(message);
    }
    expect((await call(clients(), { token: tokens.owner })).body).toEqual({ clients: [] });
    // Nothing about clients (the import that made the organisation recorded its catalogue).
    expect((await auditEntries()).filter((e) => e.Action.startsWith('oidc-client.'))).toEqual([]);
  });

  it('a confidential client gets a 256-bit secret once, stored only as its SHA-256, never read back', async () => {
    const res = await call(clients(), { token: tokens.owner, body: shop() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...shop(), public: false });
    const secret: string = res.body.clientSecret;
    answered.push(secret);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(Buffer.from((await storedHash('web-shop'))!)).toEqual(sha256(secret));
    const read = await call(`${clients()}/web-shop`, { token: tokens.owner });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      ...shop(),
      public: false,
      createdAt: read.body.createdAt,
      updatedAt: read.body.updatedAt,
    });
    const list = await call(clients(), { token: tokens.owner });
    expect(list.body.clients).toHaveLength(1);
    expect(JSON.stringify([read.body, list.body])).not.toContain(secret);
    const entries = await auditEntries();
    expect(JSON.stringify(entries)).not.toContain(secret);
    const created = entries.find((e) => e.Action === 'oidc-client.create')!;
    expect(created.ActorEmail).toBe('owner@acme.example');
  });

  it('a second client with that clientId is a 409; loopback http and, for public clients, private-use schemes are accepted', async () => {
    expect((await call(clients(), { token: tokens.owner, body: shop() })).status).toBe(409);
    const native = await call(clients(), {
      token: tokens.admin,
      body: {
        clientId: 'ios.app~1',
        name: 'iOS app',
        public: true,
        redirectUris: ['com.example.app:/oauth/cb', 'http://[::1]/cb', 'http://localhost:9000/cb'],
      },
    });
    expect(native.status).toBe(201);
    expect(native.body).toMatchObject({ clientId: 'ios.app~1', public: true, postLogoutRedirectUris: [] });
    expect(native.body.clientSecret).toBeUndefined();
    expect(await storedHash('ios.app~1')).toBeNull();
  });

  it('a registration without clientId gets a random one', async () => {
    const res = await call(clients(), {
      token: tokens.owner,
      body: { name: 'Keycloak', redirectUris: ['https://kc.example/realms/r/broker/assent/endpoint'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.clientId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(res.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    answered.push(res.body.clientSecret);
    expect((await call(`${clients()}/${res.body.clientId}`, { method: 'DELETE', token: tokens.owner })).status).toBe(
      204,
    );
  });

  it('PUT changes name and URIs, keeps absent fields, refuses to flip public or invalid URIs and then changes nothing', async () => {
    const url = `${clients()}/web-shop`;
    const before = (await call(url, { token: tokens.owner })).body;
    const flip = await call(url, { method: 'PUT', token: tokens.owner, body: { public: true, name: 'Shop' } });
    expect(flip.status).toBe(400);
    expect(flip.body.Message).toMatch(/public: cannot change/);
    const bad = await call(url, {
      method: 'PUT',
      token: tokens.owner,
      body: { redirectUris: ['com.example.app:/cb'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.Message).toMatch(/redirectUris\[0\]/);
    expect((await call(url, { token: tokens.owner })).body).toEqual(before);
    const res = await call(url, {
      method: 'PUT',
      token: tokens.admin,
      body: { name: 'Shop', redirectUris: ['https://shop.example/callback'], public: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Shop',
      redirectUris: ['https://shop.example/callback'],
      postLogoutRedirectUris: ['https://shop.example/bye'],
      public: false,
    });
    expect(res.body.clientSecret).toBeUndefined();
    // The same values again change nothing, and add no audit entry.
    const entries = (await auditEntries()).length;
    expect((await call(url, { method: 'PUT', token: tokens.owner, body: { name: 'Shop' } })).status).toBe(200);
    expect(await auditEntries()).toHaveLength(entries);
  });

  it('rotation answers a new secret once and replaces the stored hash; a public client has none to rotate', async () => {
    const url = `${clients()}/web-shop`;
    const old = Buffer.from((await storedHash('web-shop'))!);
    const res = await call(`${url}/secret`, { method: 'POST', token: tokens.owner });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ clientId: 'web-shop', name: 'Shop' });
    const secret: string = res.body.clientSecret;
    answered.push(secret);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const now = Buffer.from((await storedHash('web-shop'))!);
    expect(now).toEqual(sha256(secret));
    expect(now).not.toEqual(old);
    const again = await call(`${url}/secret`, { method: 'POST', token: tokens.admin, body: {} });
    expect(again.body.clientSecret).not.toBe(secret);
    answered.push(again.body.clientSecret);
    expect(JSON.stringify((await call(clients(), { token: tokens.owner })).body)).not.toContain(
      again.body.clientSecret,
    );
    const pub = await call(`${clients()}/ios.app~1/secret`, { method: 'POST', token: tokens.owner });
    expect(pub.status).toBe(400);
    expect(await storedHash('ios.app~1')).toBeNull();
  });

  it('only Owner or Admin may call: Dpo, Developer and an individual get 403, no token 401', async () => {
    const one = `${clients()}/web-shop`;
    const calls: [string, string, unknown?][] = [
      ['POST', clients(), { ...shop(), clientId: 'other' }],
      ['GET', clients()],
      ['GET', one],
      ['PUT', one, { name: 'Hijacked' }],
      ['POST', `${one}/secret`],
      ['DELETE', one],
    ];
    const before = (await call(clients(), { token: tokens.owner })).body;
    for (const who of ['dpo', 'developer', 'alice'] as const)
      for (const [method, url, body] of calls)
        expect((await call(url, { method, token: tokens[who], body })).status, `${who} ${method} ${url}`).toBe(403);
    for (const [method, url, body] of calls) expect((await call(url, { method, body })).status).toBe(401);
    expect((await call(clients(), { token: tokens.owner })).body).toEqual(before);
    expect((await call(clients(), { token: tokens.admin })).status).toBe(200);
  });

  it("another organisation's client, an unknown organisation or client, and a malformed clientID are 404", async () => {
    const theirs = `${clients(bravoId)}/web-shop`;
    expect((await call(clients(bravoId), { token: tokens.bravo })).body).toEqual({ clients: [] });
    const cases: [string, string, string][] = [
      ['GET', theirs, tokens.bravo],
      ['PUT', theirs, tokens.bravo],
      ['POST', `${theirs}/secret`, tokens.bravo],
      ['DELETE', theirs, tokens.bravo],
      ['GET', `${clients()}/no-such-client`, tokens.owner],
      ['GET', `${clients()}/bad%20id`, tokens.owner],
      ['DELETE', `${clients()}/${'x'.repeat(99)}!`, tokens.owner],
      ['GET', clients('00000000-0000-7000-8000-000000000000'), tokens.owner],
    ];
    for (const [method, url, token] of cases) {
      const res = await call(url, { method, token, body: method === 'PUT' ? { name: 'x' } : undefined });
      expect(res.status, `${method} ${url}`).toBe(404);
    }
    expect((await call(`${clients()}/web-shop`, { token: tokens.owner })).body.name).toBe('Shop');
  });

  it('DELETE is 204, then the client is gone (GET and DELETE 404)', async () => {
    const url = `${clients()}/ios.app~1`;
    expect((await call(url, { method: 'DELETE', token: tokens.admin })).status).toBe(204);
    expect((await call(url, { token: tokens.owner })).status).toBe(404);
    expect((await call(url, { method: 'DELETE', token: tokens.owner })).status).toBe(404);
  });

  it('every change is in the audit log with its actor and changed fields, never a secret', async () => {
    const entries = (await auditEntries()).filter((e) => e.Action.startsWith('oidc-client.'));
    const summary = entries.map((e) => [e.Action, e.Detail.clientId, e.Detail.fields]).reverse();
    const generated = summary[2]![1];
    expect(summary).toEqual([
      [
        'oidc-client.create',
        'web-shop',
        ['clientId', 'name', 'redirectUris', 'postLogoutRedirectUris', 'public', 'clientSecret'],
      ],
      ['oidc-client.create', 'ios.app~1', ['clientId', 'name', 'redirectUris', 'postLogoutRedirectUris', 'public']],
      [
        'oidc-client.create',
        generated,
        ['clientId', 'name', 'redirectUris', 'postLogoutRedirectUris', 'public', 'clientSecret'],
      ],
      ['oidc-client.delete', generated, undefined],
      ['oidc-client.update', 'web-shop', ['name', 'redirectUris']],
      ['oidc-client.secret.rotate', 'web-shop', ['clientSecret']],
      ['oidc-client.secret.rotate', 'web-shop', ['clientSecret']],
      ['oidc-client.delete', 'ios.app~1', undefined],
    ]);
    const ids = new Set(entries.map((e) => e.ActorUserID));
    expect(ids.size).toBe(2); // the owner and the admin
    expect(answered).toHaveLength(4);
    const text = JSON.stringify(await auditEntries());
    for (const secret of answered) expect(text).not.toContain(secret);
  });
});
