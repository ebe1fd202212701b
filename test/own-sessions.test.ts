/**
 * A person's own sessions (docs/security.md "Sessions"): listed with when each was opened and last used, its client,
 * kind, `User-Agent` and network (never the address), the current one marked; ended one at a time or all but the
 * current one, at once, through the API and the Security page; someone else's session is unknown. Behind a proxy
 * (`ASSENT_TRUST_PROXY=true`) the network is the forwarded client's, IPv4 cut to /24 and IPv6 to /48. Both stores.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, type TestAssent } from './helpers/assent.js';
import { CONSENT_PASSWORD, type ConsentOrg, consentSuite } from './helpers/consent-org.js';
import { DEFAULT_CLIENT } from './helpers/session.js';
import { webSignIn } from './helpers/web-client.js';

const s = consentSuite({ ASSENT_TRUST_PROXY: 'true' });
let t: TestAssent;
let org: ConsentOrg;
beforeAll(() => {
  ({ t, org } = s);
});

type Session = { ID: string; Kind: string; UserAgent: string; IPPrefix: string; Current: boolean; LastUsedAt: string };
/** Logs Dave in through the API from `ip` with `agent`; answers the access and refresh tokens. */
async function signIn(agent: string, ip: string) {
  const res = await call(`${t.base}/v1.1/users/login`, {
    body: { username: 'dave@shop.example', password: CONSENT_PASSWORD },
    headers: { 'user-agent': agent, 'x-forwarded-for': ip },
  });
  expect(res.status).toBe(200);
  return res.body.Token as { access_token: string; refresh_token: string };
}
const list = async (token: string): Promise<Session[]> => {
  const res = await call(`${t.base}/user/sessions`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.Sessions;
};

describe('listing and ending one’s own sessions', () => {
  it('lists each session with its device and network, the current one marked; ends one, then all others', async () => {
    const phone = await signIn('ShopApp/3.1 (iPhone; iOS 18)', '198.51.100.77');
    const laptop = await signIn('Mozilla/5.0 (X11; Linux x86_64)', '2001:db8:1:2::5');
    const browser = await webSignIn(t, { username: 'dave@shop.example', password: CONSENT_PASSWORD });
    expect(browser.cookie).not.toBe('');

    const sessions = await list(phone.access_token);
    const byAgent = (a: string) => sessions.find((x) => x.UserAgent === a)!;
    expect(byAgent('ShopApp/3.1 (iPhone; iOS 18)')).toMatchObject({
      Kind: 'api',
      IPPrefix: '198.51.100.0/24',
      Current: true,
    });
    expect(byAgent('Mozilla/5.0 (X11; Linux x86_64)')).toMatchObject({ IPPrefix: '2001:db8:1::/48', Current: false });
    expect(sessions.filter((x) => x.Kind === 'web')).toHaveLength(1);
    expect(JSON.stringify(sessions)).not.toContain('198.51.100.77');

    // A refresh counts as a use.
    const before = byAgent('Mozilla/5.0 (X11; Linux x86_64)').LastUsedAt;
    await new Promise((r) => setTimeout(r, 1100));
    const refreshed = await call(`${t.base}/users/token`, {
      body: { refreshtoken: laptop.refresh_token, clientid: DEFAULT_CLIENT },
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    const laptopAccess = refreshed.body.access_token as string;
    const after = (await list(phone.access_token)).find((x) => x.UserAgent.startsWith('Mozilla/5.0 (X11'))!;
    expect(Date.parse(after.LastUsedAt)).toBeGreaterThan(Date.parse(before));

    // Someone else cannot end Dave's session: it is unknown to them.
    const laptopId = byAgent('Mozilla/5.0 (X11; Linux x86_64)').ID;
    const stranger = await call(`${t.base}/user/sessions/${laptopId}`, { method: 'DELETE', token: org.tokens.carol });
    expect(stranger.status).toBe(404);
    const key = await call(`${t.base}/user/sessions/${laptopId}`, {
      method: 'DELETE',
      token: org.apiKeys.dave,
      scheme: 'ApiKey',
    });
    expect(key.status).toBe(401);
    expect((await call(`${t.base}/user`, { token: laptopAccess })).status).toBe(200);

    const ended = await call(`${t.base}/user/sessions/${laptopId}`, { method: 'DELETE', token: phone.access_token });
    expect(ended.status).toBe(204);
    expect((await call(`${t.base}/user`, { token: laptopAccess })).status).toBe(401);
    expect((await list(phone.access_token)).map((x) => x.ID)).not.toContain(laptopId);

    // The Security page lists the rest and ends every other one.
    const page = await (await browser.get('/dashboard/security')).text();
    expect(page).toContain('ShopApp/3.1 (iPhone; iOS 18)');
    expect(page).toContain('This browser');
    const others = await browser.post('/dashboard/security/sessions/end-others', { _csrf: await browser.csrf() });
    expect(others.status).toBe(303);
    expect((await call(`${t.base}/user`, { token: phone.access_token })).status).toBe(401);
    expect((await browser.get('/dashboard/security')).status).toBe(200);
  });
});
