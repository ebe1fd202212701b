import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

describe('API keys are long-lived and revocable', () => {
  it('the API key lives 360 days by default', async () => {
    const { User } = await login(t, 'alice@acme.example', 'alice-passphrase');
    const claims = JSON.parse(Buffer.from(User.APIKey.split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(360 * 86400);
  });

  it('revoking refuses the old key at once, and the next login issues a new one', async () => {
    const { User, Token } = await login(t, 'alice@acme.example', 'alice-passphrase');
    expect((await call(`${t.base}/user`, { token: User.APIKey, scheme: 'ApiKey' })).status).toBe(200);
    const revoked = await call(`${t.base}/user/apikey/revoke`, { method: 'POST', token: Token.access_token });
    expect(revoked.status).toBe(204);
    expect((await call(`${t.base}/user`, { token: User.APIKey, scheme: 'ApiKey' })).status).toBe(401);
    expect((await call(`${t.base}/user`, { token: User.APIKey })).status).toBe(401);
    const again = await login(t, 'alice@acme.example', 'alice-passphrase');
    expect(again.User.APIKey).not.toBe(User.APIKey);
    expect((await call(`${t.base}/user`, { token: again.User.APIKey, scheme: 'ApiKey' })).status).toBe(200);
  });

  it('revoking needs a session: an API key cannot revoke keys', async () => {
    const { User } = await login(t, 'bob@acme.example', 'bob-passphrase');
    const res = await call(`${t.base}/user/apikey/revoke`, { method: 'POST', token: User.APIKey, scheme: 'ApiKey' });
    expect(res.status).toBe(401);
    expect((await call(`${t.base}/user`, { token: User.APIKey, scheme: 'ApiKey' })).status).toBe(200);
  });

  it('one user revoking leaves other users’ keys working', async () => {
    const bob = await login(t, 'bob@acme.example', 'bob-passphrase');
    const alice = await login(t, 'alice@acme.example', 'alice-passphrase');
    await call(`${t.base}/user/apikey/revoke`, { method: 'POST', token: alice.Token.access_token });
    expect((await call(`${t.base}/user`, { token: bob.User.APIKey })).status).toBe(200);
  });
});
