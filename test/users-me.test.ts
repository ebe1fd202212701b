import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let token: string;
beforeAll(async () => {
  t = await startAssent();
  token = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
});
afterAll(() => t?.stop());

describe('the signed-in user (GET and PATCH {base}/user)', () => {
  it('GET answers the caller’s own User record', async () => {
    const res = await call(`${t.base}/user`, { token });
    expect(res.status).toBe(200);
    expect(res.body.User).toMatchObject({
      ID: t.ids.organisations.acme!.users['alice@acme.example'],
      Name: 'Alice',
      Phone: '+46700000001',
    });
    expect(res.body.User.APIKey).toBeTruthy();
  });

  it('the API key is stable across logins', async () => {
    const again = await login(t, 'alice@acme.example', 'alice-passphrase');
    const me = await call(`${t.base}/user`, { token });
    expect(again.User.APIKey).toBe(me.body.User.APIKey);
  });

  it('PATCH changes Name, Phone and Client, with keys in any case, and leaves the rest', async () => {
    const res = await call(`${t.base}/user`, {
      method: 'PATCH',
      token,
      body: { Name: 'Alice A.', phone: '+46700000009', Client: { Token: 'device-token-1', Type: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.User).toMatchObject({
      Name: 'Alice A.',
      Phone: '+46700000009',
      Client: { Token: 'device-token-1', Type: 1 },
      Email: 'alice@acme.example',
    });
    const after = await call(`${t.base}/user`, { token });
    expect(after.body.User).toMatchObject({ Name: 'Alice A.', Phone: '+46700000009' });
  });

  it('PATCH ignores fields the user may not change', async () => {
    const res = await call(`${t.base}/user`, {
      method: 'PATCH',
      token,
      body: { email: 'mallory@evil.example', ID: 'x' },
    });
    expect(res.status).toBe(200);
    expect(res.body.User.Email).toBe('alice@acme.example');
  });

  it('PATCH with a bad value is a 400 and changes nothing', async () => {
    const res = await call(`${t.base}/user`, {
      method: 'PATCH',
      token,
      body: { name: 'Eve', client: { token: 'x', type: 'phone' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.Code).toBe(400);
    expect((await call(`${t.base}/user`, { token })).body.User.Name).toBe('Alice A.');
  });

  it('without a credential GET and PATCH are 401 JSON errors', async () => {
    expect((await call(`${t.base}/user`)).status).toBe(401);
    const res = await call(`${t.base}/user`, { method: 'PATCH', body: { name: 'x' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ Code: 401, Message: expect.any(String) });
  });
});
