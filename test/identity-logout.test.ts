import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssent, type TestAssent } from './helpers/assent.js';
import { ALICE, BOB, DEFAULT_CLIENT, logout, meStatus, refresh, signIn } from './helpers/session.js';

let t: TestAssent;
beforeAll(async () => {
  t = await startAssent();
});
afterAll(() => t?.stop());

describe('docs/api.md "Identity management" logout user', () => {
  it('logout answers 204 with an empty body and ends that session: its access token is 401, its refresh token 400', async () => {
    const { Token } = await signIn(t, ALICE);
    expect(await meStatus(t, Token.access_token)).toBe(200);
    const res = await fetch(`${t.base}/users/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${Token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT }),
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(await meStatus(t, Token.access_token)).toBe(401);
    const again = await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('logout also ends access tokens minted by earlier rotations of the session', async () => {
    const { Token } = await signIn(t, ALICE);
    const rotated = await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(rotated.status).toBe(200);
    expect(await meStatus(t, Token.access_token)).toBe(200);
    const res = await logout(
      t,
      { refreshToken: rotated.body.refresh_token, clientId: DEFAULT_CLIENT },
      rotated.body.access_token,
    );
    expect(res.status).toBe(204);
    expect(await meStatus(t, Token.access_token)).toBe(401);
    expect(await meStatus(t, rotated.body.access_token)).toBe(401);
  });

  it('another session of the same user still works after a logout', async () => {
    const one = await signIn(t, ALICE);
    const two = await signIn(t, ALICE);
    expect(
      (await logout(t, { refreshtoken: one.Token.refresh_token, clientid: DEFAULT_CLIENT }, one.Token.access_token))
        .status,
    ).toBe(204);
    expect(await meStatus(t, one.Token.access_token)).toBe(401);
    expect(await meStatus(t, two.Token.access_token)).toBe(200);
    expect((await refresh(t, { refreshtoken: two.Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(200);
  });

  it("logging out with someone else's refresh token is refused (400) and does not end their session", async () => {
    const alice = await signIn(t, ALICE);
    const bob = await signIn(t, BOB);
    const res = await logout(
      t,
      { refreshtoken: bob.Token.refresh_token, clientid: DEFAULT_CLIENT },
      alice.Token.access_token,
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ Code: 400, error: 'invalid_grant' });
    expect(await meStatus(t, bob.Token.access_token)).toBe(200);
    expect(await meStatus(t, alice.Token.access_token)).toBe(200);
    expect((await refresh(t, { refreshtoken: bob.Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(200);
  });

  it('logout with an API key (ApiKey or Bearer scheme) is refused 401: the operation needs a session', async () => {
    const { User, Token } = await signIn(t, ALICE);
    expect(await meStatus(t, User.APIKey, 'ApiKey')).toBe(200);
    for (const scheme of ['ApiKey', 'Bearer']) {
      const res = await logout(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT }, User.APIKey, scheme);
      expect(res.status, scheme).toBe(401);
      expect(res.body).toMatchObject({ Code: 401 });
    }
    expect(await meStatus(t, Token.access_token)).toBe(200);
    expect((await refresh(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT })).status).toBe(200);
  });

  it('logout without a bearer token is 401 and leaves the session alive', async () => {
    const { Token } = await signIn(t, ALICE);
    const res = await logout(t, { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ Code: 401 });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await meStatus(t, Token.access_token)).toBe(200);
  });

  it('logout with an ended session is 401', async () => {
    const { Token } = await signIn(t, ALICE);
    const body = { refreshtoken: Token.refresh_token, clientid: DEFAULT_CLIENT };
    expect((await logout(t, body, Token.access_token)).status).toBe(204);
    expect((await logout(t, body, Token.access_token)).status).toBe(401);
  });

  it('logout with an access token as the refresh token is 400 and ends nothing', async () => {
    const { Token } = await signIn(t, ALICE);
    const res = await logout(t, { refreshtoken: Token.access_token, clientid: DEFAULT_CLIENT }, Token.access_token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(await meStatus(t, Token.access_token)).toBe(200);
  });
});
