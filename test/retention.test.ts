import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';

let t: TestAssent;
let url: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startAssent();
  await runImport(
    t.store.db,
    {
      organisations: [
        {
          key: 'acme',
          name: 'Acme',
          location: 'Stockholm',
          type: 'Retail',
          admins: [{ username: 'dev@acme.example', password: 'dev-passphrase', roles: ['developer'] }],
        },
      ],
    },
    t.config.argon2,
    redirectUriImport,
  );
  url = `${t.base}/organizations/${t.ids.organisations.acme!.id}/data-retention`;
  tokens.owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  tokens.developer = (await login(t, 'dev@acme.example', 'dev-passphrase')).Token.access_token;
  tokens.alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
});
afterAll(() => t?.stop());

describe('data retention of an organisation', () => {
  it('starts disabled with no period', async () => {
    const res = await call(url, { token: tokens.owner });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ DataRetention: { Enabled: false, RetentionPeriod: 0 } });
  });

  it('an Owner sets the period in seconds, then enables and disables it', async () => {
    expect((await call(url, { token: tokens.owner, body: { RetentionPeriod: 31536000 } })).body).toEqual({
      DataRetention: { Enabled: false, RetentionPeriod: 31536000 },
    });
    expect((await call(`${url}/enable`, { method: 'POST', token: tokens.owner })).body).toEqual({
      DataRetention: { Enabled: true, RetentionPeriod: 31536000 },
    });
    expect((await call(url, { token: tokens.owner })).body.DataRetention.Enabled).toBe(true);
    expect((await call(`${url}/disable`, { method: 'POST', token: tokens.owner })).body).toEqual({
      DataRetention: { Enabled: false, RetentionPeriod: 31536000 },
    });
  });

  it('the period key matches without regard to case', async () => {
    expect(
      (await call(url, { token: tokens.owner, body: { retentionperiod: 86400 } })).body.DataRetention.RetentionPeriod,
    ).toBe(86400);
  });

  it('a period that is not a positive whole number of seconds is a 400 and changes nothing', async () => {
    for (const body of [
      { RetentionPeriod: 0 },
      { RetentionPeriod: -5 },
      { RetentionPeriod: 1.5 },
      { RetentionPeriod: 'year' },
      {},
    ]) {
      expect((await call(url, { token: tokens.owner, body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await call(url, { token: tokens.owner })).body.DataRetention.RetentionPeriod).toBe(86400);
  });

  it('a Developer may read but not change it; an individual may do neither', async () => {
    expect((await call(url, { token: tokens.developer })).status).toBe(200);
    expect((await call(`${url}/enable`, { method: 'POST', token: tokens.developer })).status).toBe(403);
    expect((await call(url, { token: tokens.developer, body: { RetentionPeriod: 1 } })).status).toBe(403);
    expect((await call(url, { token: tokens.alice })).status).toBe(403);
    expect((await call(url, { token: tokens.owner })).body.DataRetention).toEqual({
      Enabled: false,
      RetentionPeriod: 86400,
    });
  });

  it('an unknown organisation is a 404', async () => {
    const res = await call(`${t.base}/organizations/01a20000-0000-7000-8000-000000000000/data-retention`, {
      token: tokens.owner,
    });
    expect(res.status).toBe(404);
  });
});
