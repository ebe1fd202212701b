import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

describe('docs/api.md "Identity management" logins', () => {
  it('v1.1 login answers User and Token with the shapes of docs/api.md "Resources"', async () => {
    const res = await call(`${t.base}/v1.1/users/login`, {
      body: { username: 'alice@acme.example', password: 'alice-passphrase' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['Token', 'User']);
    expect(res.body.Token).toMatchObject({ token_type: 'bearer', expires_in: 900, refresh_expires_in: 36000 });
    expect(res.body.User).toMatchObject({
      ID: t.ids.organisations.acme!.users['alice@acme.example'],
      Name: 'Alice',
      Email: 'alice@acme.example',
    });
    expect(res.body.User.Orgs).toEqual([
      expect.objectContaining({
        OrgID: t.ids.organisations.acme!.id,
        Name: 'Acme',
        Location: 'Stockholm',
        Type: 'Retail',
      }),
    ]);
    expect(typeof res.body.User.APIKey).toBe('string');
    expect(Date.parse(res.body.User.LastVisit)).toBeGreaterThan(Date.now() - 10_000);
  });

  it('the v1.1 login is also served at the host root', async () => {
    const res = await call(`${t.url}/v1.1/users/login`, {
      body: { username: 'alice@acme.example', password: 'alice-passphrase' },
    });
    expect(res.status).toBe(200);
    expect(res.body.Token.access_token).toBeTruthy();
  });

  it('the old login answers a bare Token', async () => {
    const res = await call(`${t.base}/users/login`, {
      body: { username: 'alice@acme.example', password: 'alice-passphrase' },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'access_token',
      'expires_in',
      'refresh_expires_in',
      'refresh_token',
      'token_type',
    ]);
  });

  it('LastVisit moves forward on every login', async () => {
    const first = await login(t, 'bob@acme.example', 'bob-passphrase');
    await new Promise((r) => setTimeout(r, 20));
    const second = await login(t, 'bob@acme.example', 'bob-passphrase');
    expect(Date.parse(second.User.LastVisit)).toBeGreaterThan(Date.parse(first.User.LastVisit));
  });

  it('admin login gives the admin roles; a user with no admin role gets a 403', async () => {
    const admin = await call(`${t.base}/users/admin/login`, {
      body: { username: 'owner@acme.example', password: 'owner-passphrase' },
    });
    expect(admin.status).toBe(200);
    expect(admin.body.User.Roles.map((r: { RoleID: number }) => r.RoleID).sort()).toEqual([1, 2, 3, 4]);
    const individual = await call(`${t.base}/users/admin/login`, {
      body: { username: 'alice@acme.example', password: 'alice-passphrase' },
    });
    expect(individual.status).toBe(403);
    expect(individual.body).toMatchObject({ Code: 403 });
  });

  it('a wrong username and a wrong password get the same 401 body', async () => {
    const wrongUser = await call(`${t.base}/v1.1/users/login`, {
      body: { username: 'nobody@acme.example', password: 'alice-passphrase' },
    });
    const wrongPassword = await call(`${t.base}/v1.1/users/login`, {
      body: { username: 'alice@acme.example', password: 'not-her-passphrase' },
    });
    expect(wrongUser.status).toBe(401);
    expect(wrongPassword.status).toBe(401);
    expect(wrongUser.body).toEqual(wrongPassword.body);
    expect(wrongUser.body).toEqual({
      Code: 401,
      Message: 'Invalid user credentials',
      error: 'invalid_grant',
      error_description: 'Invalid user credentials',
    });
  });

  it('usernames match without regard to case, and body keys too', async () => {
    const res = await call(`${t.base}/v1.1/users/login`, {
      body: { UserName: 'ALICE@acme.example', Password: 'alice-passphrase' },
    });
    expect(res.status).toBe(200);
  });

  it('the same key twice in different cases is a 400', async () => {
    const res = await call(`${t.base}/v1.1/users/login`, {
      body: '{"username":"alice@acme.example","Username":"bob@acme.example","password":"x"}',
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ Code: 400, error: 'invalid_request' });
  });

  it('a missing field, a non-object body and broken JSON are 400 JSON errors', async () => {
    for (const body of [{ username: 'alice@acme.example' }, '[1,2]', '{"username":', '']) {
      const res = await call(`${t.base}/v1.1/users/login`, { body, headers: { 'content-type': 'application/json' } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body.Code).toBe(400);
    }
  });

  it('a NUL character in the body is a 400, not a database error', async () => {
    const res = await call(`${t.base}/v1.1/users/login`, {
      body: { username: 'alice\u0000@acme.example', password: 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ Code: 400, error: 'invalid_request' });
    expect(res.body.Message).toContain('NUL');
  });
});
