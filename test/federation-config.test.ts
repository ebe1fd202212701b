/**
 * The IdP configuration (docs/api.md "Identity management" add, update, get, delete; docs/federation.md): statuses, validation,
 * the write-only client secret sealed under the master key, who may call, the app redirect URIs
 * (admin API and import file), and the audit log.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { rowsOf } from '../src/platform/db/open.js';
import { call, demoImport, login, startAssent, type TestAssent } from './helpers/assent.js';

const SECRET = 'the-client-secret-1234567890';
let t: TestAssent;
let owner: string;
let ownerId: string;
let alice: string;
let orgId: string;
const idp = () => `${t.base}/organizations/${orgId}/idp/open-id`;
const valid = () => ({
  issuer: 'https://idp.example',
  authorizationUrl: 'https://idp.example/auth',
  tokenUrl: 'https://idp.example/token',
  logoutUrl: 'https://idp.example/logout',
  jwksUrl: 'https://idp.example/jwks',
  userInfoUrl: 'https://idp.example/userinfo',
  clientId: 'assent',
  clientSecret: SECRET,
  disableUserInfo: false,
  defaultScope: 'openid email',
});
const sealed = async () =>
  rowsOf<{ s: string }>(
    await t.store.db.execute(sql`SELECT client_secret_sealed AS s FROM idp_configs WHERE org_id = ${orgId}`),
  )[0]?.s;

beforeAll(async () => {
  t = await startAssent();
  orgId = t.ids.organisations.acme!.id;
  const o = await login(t, 'owner@acme.example', 'owner-passphrase');
  owner = o.Token.access_token;
  ownerId = o.User.ID;
  alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
});
afterAll(async () => t?.stop());

describe('IdP configuration', () => {
  it('GET, PUT and DELETE when none exists are 404', async () => {
    expect((await call(idp(), { token: owner })).status).toBe(404);
    expect((await call(idp(), { method: 'PUT', token: owner, body: valid() })).status).toBe(404);
    expect((await call(idp(), { method: 'DELETE', token: owner })).status).toBe(404);
  });

  it('validation: https only (no allowed http host here), defaultScope must include openid, no private literal, required fields', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...valid(), tokenUrl: 'http://idp.example/token' }, /tokenUrl: must be an https URL/],
      [{ ...valid(), issuer: 'not a url' }, /issuer: must be an absolute URL/],
      [{ ...valid(), defaultScope: 'email profile' }, /defaultScope: must include openid/],
      [{ ...valid(), jwksUrl: 'https://169.254.169.254/keys' }, /jwksUrl: must not name a loopback/],
      [{ ...valid(), userInfoUrl: '' }, /userInfoUrl: required unless disableUserInfo/],
      [{ issuer: 'https://idp.example' }, /tokenUrl: required.*clientSecret: required/],
    ];
    for (const [body, message] of cases) {
      const res = await call(idp(), { token: owner, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.Message).toMatch(message);
    }
    expect((await call(idp(), { token: owner })).status).toBe(404);
  });

  it('POST answers 201 without clientSecret; validateSignature defaults to true; a second POST is 409', async () => {
    const res = await call(idp(), { token: owner, body: valid() });
    expect(res.status).toBe(201);
    const { clientSecret: _s, ...shown } = valid();
    expect(res.body).toEqual({ ...shown, validateSignature: true });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect((await call(idp(), { token: owner, body: valid() })).status).toBe(409);
  });

  it('the secret is stored sealed (AES-256-GCM envelope v1) and never returned by GET', async () => {
    const stored = await sealed();
    expect(stored).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(SECRET);
    expect(t.ctx.master.open(stored!, 'idp-client-secret')).toBe(SECRET);
    const res = await call(idp(), { token: owner });
    expect(res.status).toBe(200);
    expect(res.body.clientSecret).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
  });

  it('PUT without clientSecret keeps the stored one; with one replaces it', async () => {
    const res = await call(idp(), {
      method: 'PUT',
      token: owner,
      body: { defaultScope: 'openid profile', validateSignature: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      defaultScope: 'openid profile',
      validateSignature: false,
      issuer: 'https://idp.example',
    });
    expect(res.body.clientSecret).toBeUndefined();
    expect(t.ctx.master.open((await sealed())!, 'idp-client-secret')).toBe(SECRET);
    expect(
      (
        await call(idp(), {
          method: 'PUT',
          token: owner,
          body: { clientSecret: 'a-new-secret', validateSignature: true },
        })
      ).status,
    ).toBe(200);
    expect(t.ctx.master.open((await sealed())!, 'idp-client-secret')).toBe('a-new-secret');
  });

  it('only Owner or Admin may configure: an individual gets 403, no token 401, an unknown organisation 404', async () => {
    expect((await call(idp(), { token: alice })).status).toBe(403);
    expect((await call(idp(), { method: 'PUT', token: alice, body: {} })).status).toBe(403);
    expect((await call(`${idp()}/redirect-uri`, { token: alice })).status).toBe(403);
    expect((await call(idp())).status).toBe(401);
    expect(
      (await call(`${t.base}/organizations/00000000-0000-7000-8000-000000000000/idp/open-id`, { token: owner })).status,
    ).toBe(404);
  });

  it('app redirect URIs: PUT replaces, GET lists; unsafe URIs are refused', async () => {
    const bad = await call(`${idp()}/app-redirect-uris`, {
      method: 'PUT',
      token: owner,
      body: { RedirectURIs: ['javascript:alert(1)', 'http://evil.example/cb', 'https://app.example/cb#x'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.Message).toMatch(/RedirectURIs\[0\].*RedirectURIs\[1\].*RedirectURIs\[2\]/);
    const ok = await call(`${idp()}/app-redirect-uris`, {
      method: 'PUT',
      token: owner,
      body: { RedirectURIs: ['https://app.example/cb', 'com.example.app:/cb', 'http://127.0.0.1:4000/cb'] },
    });
    expect(ok.status).toBe(200);
    expect((await call(`${idp()}/app-redirect-uris`, { token: owner })).body.RedirectURIs).toEqual([
      'com.example.app:/cb',
      'http://127.0.0.1:4000/cb',
      'https://app.example/cb',
    ]);
  });

  it('the import file sets the app redirect URIs (optional redirectUris of an organisation), audited once per change', async () => {
    const file = demoImport();
    (file.organisations[0] as Record<string, unknown>).redirectUris = ['https://imported.example/cb'];
    await runImport(t.store.db, file, t.config.argon2, redirectUriImport);
    expect((await call(`${idp()}/app-redirect-uris`, { token: owner })).body.RedirectURIs).toEqual([
      'https://imported.example/cb',
    ]);
    const audited = (await call(`${t.base}/organizations/${orgId}/audit-log?limit=1`, { token: owner })).body
      .Entries[0];
    expect(audited).toMatchObject({
      Action: 'idp.app-redirect-uris.update',
      ActorUserID: '',
      ActorAPIKeyID: '',
      Detail: { uris: ['https://imported.example/cb'], source: 'import' },
    });
    // The same file again changes nothing, so it adds no entry.
    await runImport(t.store.db, file, t.config.argon2, redirectUriImport);
    expect(
      (await call(`${t.base}/organizations/${orgId}/audit-log?limit=1`, { token: owner })).body.Entries[0].ID,
    ).toBe(audited.ID);
    (file.organisations[0] as Record<string, unknown>).redirectUris = ['javascript:alert(1)'];
    await expect(runImport(t.store.db, file, t.config.argon2, redirectUriImport)).rejects.toThrow(/redirectUris\[0\]/);
  });

  it('DELETE is 204, then GET is 404', async () => {
    expect((await call(idp(), { method: 'DELETE', token: owner })).status).toBe(204);
    expect((await call(idp(), { token: owner })).status).toBe(404);
  });

  it('the audit log records each change with actor and time, never the secret; Dpo-level read, individuals 403', async () => {
    // The identity provider's entries (the import that made the organisation also recorded its catalogue).
    const res = await call(`${t.base}/organizations/${orgId}/audit-log?action=idp.`, { token: owner });
    expect(res.status).toBe(200);
    const actions = res.body.Entries.map((e: { Action: string }) => e.Action);
    expect(actions).toEqual([
      'idp.delete',
      'idp.app-redirect-uris.update',
      'idp.app-redirect-uris.update',
      'idp.update',
      'idp.update',
      'idp.create',
    ]);
    for (const e of res.body.Entries) {
      // The import's entry has no user as its actor; every other change was the owner's.
      expect(e.ActorUserID).toBe(e.Detail.source === 'import' ? '' : ownerId);
      expect(e.ActorEmail).toBe(e.Detail.source === 'import' ? '' : 'owner@acme.example');
      expect(Date.parse(e.At)).toBeGreaterThan(Date.now() - 600_000);
    }
    expect(res.body.Entries[1].Detail.source).toBe('import');
    expect(res.body.Entries[3].Detail.fields).toEqual(['clientSecret', 'validateSignature']);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('a-new-secret');
    expect((await call(`${t.base}/organizations/${orgId}/audit-log`, { token: alice })).status).toBe(403);
  });
});
