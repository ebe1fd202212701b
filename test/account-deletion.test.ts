/**
 * Account deletion (GDPR Art. 17; docs/decisions/0012-account-deletion.md): `POST {base}/users/unregister`
 * by the signed-in user, and `assent user delete ID` by an operator. Personal data and credentials go;
 * the consent history stays under the user's ID, and its chain still verifies.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { runCli, type ServedAssent, serveFresh } from './helpers/cli.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

const PW = 'consent-test-passphrase';

describe('POST {base}/users/unregister', () => {
  let t: TestAssent;
  let org: ConsentOrg;
  beforeAll(async () => {
    t = await startAssent();
    org = await setUpConsentOrg(t);
  });
  afterAll(() => t?.stop());

  it('an API key cannot delete the account: it needs the user’s session (401)', async () => {
    const res = await call(`${t.base}/users/unregister`, { method: 'POST', token: org.apiKeys.dave, scheme: 'ApiKey' });
    expect(res.status).toBe(401);
    expect((await login(t, 'dave@shop.example', PW)).User.ID).toBe(org.users.dave);
  });

  it('deletes personal data, image, credentials and federated-identity links; keeps the consent history under the ID, and the chain verifies', async () => {
    const carol = org.users.carol!;
    const record = await consentIdOf(t, org, 'carol');
    const attribute = `${consentsUrl(t, org, 'carol')}/${record}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`;
    expect(
      (await call(attribute, { method: 'PATCH', body: { consented: 'Allow', days: 0 }, token: org.tokens.carol }))
        .status,
    ).toBe(200);
    const session = await login(t, 'carol@shop.example', PW);
    const imageId = randomUUID();
    await t.store.db.execute(
      sql`INSERT INTO user_images (id, user_id, data, etag, width, height)
        VALUES (${imageId}, ${carol}, '\\x00', 'e', 1, 1)`,
    );
    await t.store.db.execute(
      sql`UPDATE users SET email = 'carol@shop.example', phone = '+46700000009', image_id = ${imageId}
        WHERE id = ${carol}`,
    );
    await t.store.db.execute(
      sql`INSERT INTO federated_identities (org_id, issuer, subject, user_id)
        VALUES (${org.orgId}, 'https://idp.example', 'carol-sub', ${carol})`,
    );

    // What the other domains hold about carol: a reset token, an unused federation code, an admin
    // role, and a failed login counted against her username.
    await t.store.db.execute(
      sql`INSERT INTO password_reset_tokens (user_id, token_hash, expires_at)
        VALUES (${carol}, '\\x01', now() + interval '1 hour')`,
    );
    await t.store.db.execute(
      sql`INSERT INTO federation_codes (code_hash, org_id, user_id, app_redirect_uri, expires_at)
        VALUES ('\\x02', ${org.orgId}, ${carol}, 'https://app.example/cb', now() + interval '1 minute')`,
    );
    await t.store.db.execute(sql`INSERT INTO user_roles (user_id, org_id, role_id) VALUES (${carol}, ${org.orgId}, 3)`);
    expect(
      (
        await call(`${t.base}/v1.1/users/login`, {
          body: { username: 'carol@shop.example', password: 'wrong-password' },
        })
      ).status,
    ).toBe(401);

    const res = await call(`${t.base}/users/unregister`, { method: 'POST', token: session.Token.access_token });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    // Her failed-login counter went with the account (the failed login below counts anew).
    const throttled = rowsOf<{ n: number }>(
      await t.store.db.execute(sql`SELECT count(*)::int AS n FROM login_throttle WHERE key = 'u:carol@shop.example'`),
    )[0]!;
    expect(throttled.n).toBe(0);

    // The credentials are gone: the password, every access token, the API key, the refresh token.
    expect(
      (await call(`${t.base}/v1.1/users/login`, { body: { username: 'carol@shop.example', password: PW } })).status,
    ).toBe(401);
    expect((await call(`${t.base}/user`, { token: session.Token.access_token })).status).toBe(401);
    expect((await call(`${t.base}/user`, { token: org.tokens.carol })).status).toBe(401);
    expect((await call(`${t.base}/user`, { token: org.apiKeys.carol, scheme: 'ApiKey' })).status).toBe(401);
    const refreshed = await call(`${t.base}/users/token`, {
      body: { refreshtoken: session.Token.refresh_token, clientid: 'igrant-ios-app' },
    });
    expect(refreshed.status).toBe(400);

    // The personal data is gone from the database.
    const [row] = rowsOf<any>(
      await t.store.db.execute(
        sql`SELECT username, name, email, phone, password_hash, image_id, deleted_at FROM users WHERE id = ${carol}`,
      ),
    );
    expect(row).toMatchObject({
      username: `deleted:${carol}`,
      name: '',
      email: '',
      phone: '',
      password_hash: null,
      image_id: '',
    });
    expect(row.deleted_at).not.toBeNull();
    const left = rowsOf<{ n: number }>(
      await t.store.db.execute(sql`
      SELECT (SELECT count(*) FROM user_images WHERE user_id = ${carol})
        + (SELECT count(*) FROM api_keys WHERE user_id = ${carol})
        + (SELECT count(*) FROM token_families WHERE user_id = ${carol})
        + (SELECT count(*) FROM subscriptions WHERE user_id = ${carol})
        + (SELECT count(*) FROM federated_identities WHERE user_id = ${carol})
        + (SELECT count(*) FROM password_reset_tokens WHERE user_id = ${carol})
        + (SELECT count(*) FROM federation_codes WHERE user_id = ${carol})
        + (SELECT count(*) FROM user_roles WHERE user_id = ${carol})
        + (SELECT count(*) FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id
          WHERE f.user_id = ${carol}) AS n`),
    )[0]!;
    expect(Number(left.n)).toBe(0);

    // The evidence stays, naming the individual by the pseudonymous ID, and the chain still verifies.
    const history = await call(`${t.base}/organizations/${org.orgId}/users/${carol}/consents/history`, {
      token: org.tokens.dpo,
    });
    expect(history.status).toBe(200);
    expect(history.body.Events.map((e: any) => [e.UserID, e.NewValue])).toEqual([[carol, 'Allow']]);
    const verify = await call(`${t.base}/organizations/${org.orgId}/consents/history/verify`, {
      token: org.tokens.dpo,
    });
    expect(verify.status).toBe(200);
    expect(verify.body.Valid).toBe(true);
    // Nobody is listed as subscribed any more.
    const users = await call(`${t.base}/organizations/${org.orgId}/users`, { token: org.tokens.owner });
    expect(users.body.Users.map((u: any) => u.ID)).not.toContain(carol);
  });
});

describe('assent user delete ID', () => {
  let s: ServedAssent;
  beforeAll(async () => {
    s = await serveFresh('examples/demo.json');
  });
  afterAll(() => s?.cleanup());

  it('deletes the account while the server runs; a second time, or an unknown ID, exits 1; bad usage exits 2', async () => {
    const before = await call(`${s.base}/v1.1/users/login`, {
      body: { username: 'alice@acme.example', password: 'demo-alice-passphrase' },
    });
    expect(before.status).toBe(200);
    const id = before.body.User.ID as string;
    const done = await runCli(['user', 'delete', id], s.env);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ deleted: id });
    const after = await call(`${s.base}/v1.1/users/login`, {
      body: { username: 'alice@acme.example', password: 'demo-alice-passphrase' },
    });
    expect(after.status).toBe(401);
    expect((await call(`${s.base}/user`, { token: before.body.Token.access_token })).status).toBe(401);
    // The organisation's audit log names the command line as the source (docs/audit.md "Entries").
    const owner = await call(`${s.base}/v1.1/users/login`, {
      body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
    });
    const orgId = owner.body.User.Roles[0].OrgID as string;
    const log = await call(`${s.base}/organizations/${orgId}/audit-log?action=individual.delete&target=${id}`, {
      token: owner.body.Token.access_token,
    });
    expect(log.body.Entries).toHaveLength(1);
    expect(log.body.Entries[0]).toMatchObject({ Source: 'cli', ActorUserID: '', ClientIP: '' });

    const again = await runCli(['user', 'delete', id], s.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no user with ID ${id}`);
    expect((await runCli(['user', 'delete', 'nope'], s.env)).code).toBe(1);
    expect((await runCli(['user', 'delete'], s.env)).code).toBe(2);
  }, 90_000); // spawns `assent` processes: seconds each on a loaded 2-core machine
});
