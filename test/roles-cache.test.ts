/**
 * The access checks cache a user's roles in an organisation (src/organisations/membership/roles-cache.ts). These tests
 * change roles behind the server's back, with SQL on another connection as another server process or
 * `assent import` would, so that only the trigger's NOTIFY (migration 0011) can tell the server.
 * Without it the cached roles would stand for a minute and the tests would fail.
 */
import { describe, expect, it } from 'vitest';
import { Role } from '../src/identity/users/roles.js';
import { call } from './helpers/assent.js';
import { consentSuite, consentsUrl } from './helpers/consent-org.js';

const suite = consentSuite();
const page = (token: string) =>
  call(`${suite.t.base}/organizations/${suite.org.orgId}/purposes/${suite.org.marketing.id}/consented/users`, {
    token,
  });
const verify = (token: string) =>
  call(`${suite.t.base}/organizations/${suite.org.orgId}/consents/history/verify`, { token });
const history = (token: string) => call(`${consentsUrl(suite.t, suite.org, 'carol')}/history`, { token });

/** Polls `request` until it answers `want` or `ms` pass; returns the last status. */
async function statusWithin(request: () => Promise<{ status: number }>, want: number, ms = 2000): Promise<number> {
  const until = Date.now() + ms;
  let status = 0;
  while (Date.now() < until) {
    status = (await request()).status;
    if (status === want) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  return status;
}

const removeRoles = (user: string) =>
  suite.t.store.raw('DELETE FROM user_roles WHERE user_id = $1 AND org_id = $2', [
    suite.org.users[user],
    suite.org.orgId,
  ]);

describe('role changes reach the cached roles of every process (ASVS 5.0 V8.3.2)', () => {
  it('a role removed by another process is refused by the auth guard within 2 s', async () => {
    const dpo = suite.org.tokens.dpo!;
    for (let i = 0; i < 3; i++) expect((await page(dpo)).status).toBe(200); // the Dpo's roles are cached now
    await removeRoles('dpo');
    expect(await statusWithin(() => page(dpo), 403)).toBe(403);
  });

  it('a role given by another process is honoured within 2 s', async () => {
    const developer = suite.org.tokens.developer!;
    for (let i = 0; i < 2; i++) expect((await verify(developer)).status).toBe(403); // cached: Developer only
    await suite.t.store.raw('INSERT INTO user_roles (user_id, org_id, role_id) VALUES ($1, $2, $3)', [
      suite.org.users.developer,
      suite.org.orgId,
      Role.Dpo,
    ]);
    expect(await statusWithin(() => verify(developer), 200)).toBe(200);
  });

  it('a role removed by another process is refused by the consent-record access check within 2 s', async () => {
    const developer = suite.org.tokens.developer!; // Dpo since the previous test: may read an individual's history
    for (let i = 0; i < 3; i++) expect((await history(developer)).status).toBe(200);
    await removeRoles('developer');
    expect(await statusWithin(() => history(developer), 403)).toBe(403);
  });
});
