/**
 * `assent import FILE` through the real CLI (docs/decisions/0004-organisations-as-code.md): the
 * printed key → ID document, idempotence, and that a bad file is refused whole, naming the JSON path.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { DEMO_FILE, freshStore, runCli, startServe, type TestStore, writeFile } from './helpers/cli.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const demo = () => JSON.parse(readFileSync(DEMO_FILE, 'utf8'));

/** Every row the import manages, minus `updated_at` (a bookkeeping time no API shows). */
const SNAPSHOT = `select json_build_object(
  'clients', (select json_agg(c order by c.client_id) from clients c),
  'types', (select json_agg(t order by t.name) from organisation_types t),
  'organisations', (select json_agg(json_build_object('id', o.id, 'key', o.key, 'name', o.name,
     'location', o.location, 'description', o.description, 'policy', o.policy_url, 'type', o.type_id,
     'retention', o.retention_enabled, 'period', o.retention_period_seconds, 'created', o.created_at)
     order by o.key) from organisations o),
  'purposes', (select json_agg(p order by p.id) from purposes p),
  'attributes', (select json_agg(a order by a.id) from data_attributes a),
  'users', (select json_agg(json_build_object('id', u.id, 'username', u.username, 'name', u.name,
     'email', u.email, 'phone', u.phone, 'hash', u.password_hash, 'created', u.created_at) order by u.username) from users u),
  'roles', (select json_agg(r order by r.user_id, r.org_id, r.role_id) from user_roles r),
  'subscriptions', (select json_agg(s order by s.user_id, s.org_id) from subscriptions s)
) as snapshot`;

/** The printed IDs without the consent history's counts (a re-import skips what the first run recorded). */
function withoutHistory(stdout: string) {
  const ids = JSON.parse(stdout);
  delete ids.organisations.acme.consentHistory;
  return ids;
}

let store: TestStore;
let first: Awaited<ReturnType<typeof runCli>>;
const snapshot = async () => (await store.query<{ snapshot: unknown }>(SNAPSHOT))[0]!.snapshot;
const importFile = (name: string, content: unknown) =>
  runCli(['import', writeFile(store.dataDir, name, content)], store.env);

/** Runs `fn` against an `assent serve` on the store, then stops it (it must exit 0). */
async function withServer(fn: (base: string) => Promise<void>): Promise<void> {
  const server = await startServe(store.env);
  try {
    await fn(server.base);
  } finally {
    expect((await server.stop()).code).toBe(0);
  }
}

beforeAll(async () => {
  store = await freshStore();
  first = await runCli(['import', DEMO_FILE], store.env);
});
afterAll(() => store?.cleanup());

describe('assent import FILE', { timeout: 120_000 }, () => {
  it('prints one JSON document mapping every key of the file to its ID, in the documented shape', () => {
    expect(first.code, first.stderr).toBe(0);
    const acme = demo().organisations[0];
    const people: string[] = [...acme.admins, ...acme.individuals].map((u: { username: string }) => u.username);
    const events = acme.individuals.reduce(
      (n: number, i: { consentHistory?: unknown[] }) => n + (i.consentHistory?.length ?? 0),
      0,
    );
    expect(events).toBeGreaterThan(100);
    const ids = JSON.parse(first.stdout);
    const shape = JSON.parse(first.stdout, (_key, value) =>
      typeof value === 'string' && UUID.test(value) ? '<id>' : value,
    );
    expect(shape).toEqual({
      clients: { 'igrant-ios-app': '<id>', 'igrant-android-app': '<id>', 'privacy-dashboard': '<id>' },
      organisations: {
        acme: {
          id: '<id>',
          purposes: {
            marketing: { id: '<id>', attributes: { email: '<id>', phone: '<id>' } },
            delivery: { id: '<id>', attributes: { address: '<id>' } },
          },
          users: Object.fromEntries(people.map((u) => [u, '<id>'])),
          consentHistory: { recorded: events, skipped: 0 },
        },
      },
    });
    const all = JSON.stringify(ids).match(/[0-9a-f]{8}-[0-9a-f-]{27}/g)!;
    expect(all).toHaveLength(9 + people.length);
    expect(new Set(all).size).toBe(all.length);
  });

  it('running the same import twice prints identical output and changes nothing in the store', async () => {
    const before = await snapshot();
    const second = await runCli(['import', DEMO_FILE], store.env);
    expect(second.code, second.stderr).toBe(0);
    // The same IDs; the consent history recorded by the first run is skipped (docs/operations.md "Consent history").
    const [a, b] = [JSON.parse(first.stdout), JSON.parse(second.stdout)];
    const { recorded } = a.organisations.acme.consentHistory;
    expect(b.organisations.acme.consentHistory).toEqual({ recorded: 0, skipped: recorded });
    b.organisations.acme.consentHistory = a.organisations.acme.consentHistory;
    expect(b).toEqual(a);
    // Same rows, same IDs, and the same password hashes (a re-hash would change the salt).
    expect(await snapshot()).toEqual(before);
  });

  it('after a re-import the demo users log in with their passwords, under the printed IDs', async () => {
    const ids = JSON.parse(first.stdout);
    await withServer(async (base) => {
      const alice = await call(`${base}/v1.1/users/login`, {
        body: { username: 'alice@acme.example', password: 'demo-alice-passphrase' },
      });
      expect(alice.status).toBe(200);
      expect(alice.body.User.ID).toBe(ids.organisations.acme.users['alice@acme.example']);
      expect(alice.body.User.Orgs.map((o: { OrgID: string }) => o.OrgID)).toEqual([ids.organisations.acme.id]);
      const owner = await call(`${base}/users/admin/login`, {
        body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
      });
      expect(owner.status).toBe(200);
      expect(owner.body.User.ID).toBe(ids.organisations.acme.users['owner@acme.example']);
      expect(owner.body.User.Roles).toEqual(
        [1, 2, 3, 4].map((RoleID) => ({ RoleID, OrgID: ids.organisations.acme.id })),
      );
    });
  });

  it('a re-import with changed names updates them and keeps every ID', async () => {
    const changed = demo();
    changed.organisations[0].name = 'Acme AB';
    changed.organisations[0].individuals[0].name = 'Alice Liddell';
    const again = await importFile('renamed.json', changed);
    expect(again.code, again.stderr).toBe(0);
    expect(withoutHistory(again.stdout)).toEqual(withoutHistory(first.stdout));
    await withServer(async (base) => {
      const alice = await call(`${base}/v1.1/users/login`, {
        body: { username: 'alice@acme.example', password: 'demo-alice-passphrase' },
      });
      expect(alice.status).toBe(200);
      expect(alice.body.User.Name).toBe('Alice Liddell');
      expect(alice.body.User.Orgs[0].Name).toBe('Acme AB');
    });
  });

  it('the catalogue events: created once per purpose and attribute, none for a repeat, updated for what a re-import changes', async () => {
    const ids = JSON.parse(first.stdout).organisations.acme;
    const changed = demo();
    const [purpose] = changed.organisations[0].purposes;
    purpose.name = `${purpose.name} (renamed)`;
    purpose.attributes[0].name = `${purpose.attributes[0].name} (renamed)`;
    changed.organisations[0].purposes.push({ key: 'added-by-import', name: 'Added by import', attributes: [] });
    const again = await importFile('catalogue.json', changed);
    expect(again.code, again.stderr).toBe(0);
    const addedId = JSON.parse(again.stdout).organisations.acme.purposes['added-by-import'].id;
    await withServer(async (base) => {
      const owner = await call(`${base}/users/admin/login`, {
        body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
      });
      const types = 'purpose.created,purpose.updated,data_attribute.created,data_attribute.updated';
      const feed = await call(`${base}/organizations/${ids.id}/events?limit=1000&types=${types}`, {
        token: owner.body.Token.access_token,
      });
      expect(feed.status).toBe(200);
      const seen = feed.body.Events.map((e: any) => `${e.type} ${e.data.PurposeID ?? e.data.AttributeID}`);
      const demoPurposes = Object.values<any>(ids.purposes);
      const demoAttributes = demoPurposes.flatMap((p) => Object.values<string>(p.attributes));
      const renamed = ids.purposes[purpose.key];
      expect(seen.sort()).toEqual(
        [
          ...demoPurposes.map((p) => `purpose.created ${p.id}`),
          ...demoAttributes.map((a) => `data_attribute.created ${a}`),
          `purpose.updated ${renamed.id}`,
          `data_attribute.updated ${renamed.attributes[purpose.attributes[0].key]}`,
          `purpose.created ${addedId}`,
        ].sort(),
      );
    });
  });

  it('an unknown field is refused with exit 1, naming its JSON path, and nothing is written', async () => {
    const before = await snapshot();
    const file = demo();
    file.clients.push({ clientId: 'colour-client' });
    file.organisations[0].name = 'Acme Colours';
    file.organisations[0].purposes[0].colour = 'red';
    const res = await importFile('colour.json', file);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('$.organisations[0].purposes[0].colour');
    expect(await snapshot()).toEqual(before);
  });

  it('a file whose second organisation is invalid creates nothing, not even its clients or first organisation', async () => {
    const firstOrg = {
      key: 'first-org',
      name: 'First',
      purposes: [{ key: 'p1', name: 'Purpose one', attributes: [{ key: 'a1', name: 'Attribute one' }] }],
      admins: [{ username: 'first-admin@first.example', password: 'first-passphrase', roles: ['owner'] }],
      individuals: [{ username: 'first-user@first.example', password: 'first-user-passphrase' }],
    };
    const invalidSeconds = {
      'an unknown field': { key: 'second-org', name: 'Second', colour: 'red' },
      // Passes the schema; PostgreSQL refuses it mid-transaction, after the first organisation was written.
      'a NUL character in a name': { key: 'second-org', name: 'Sec\u0000ond' },
    };
    const before = await snapshot();
    for (const [label, second] of Object.entries(invalidSeconds)) {
      const res = await importFile('partial.json', {
        clients: [{ clientId: 'first-client' }],
        organisations: [firstOrg, second],
      });
      expect(res.code, label).not.toBe(0);
      expect(res.stdout, label).toBe('');
      const [found] = await store.query<{ orgs: number; clients: number; users: number }>(
        `select (select count(*)::int from organisations where key in ('first-org', 'second-org')) as orgs,
                (select count(*)::int from clients where client_id = 'first-client') as clients,
                (select count(*)::int from users where username like '%@first.example') as users`,
      );
      expect(found, label).toEqual({ orgs: 0, clients: 0, users: 0 });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('bad values (role "king", a short password, duplicate purpose keys) are refused naming the JSON path', async () => {
    const cases: Array<[string, (f: any) => void, string[]]> = [
      [
        'role king',
        (f) => (f.organisations[0].admins[0].roles = ['owner', 'king']),
        ['$.organisations[0].admins[0].roles[1]'],
      ],
      [
        'short password',
        (f) => (f.organisations[0].individuals[0].password = 'short'),
        ['$.organisations[0].individuals[0].password'],
      ],
      [
        'duplicate purpose keys',
        (f) => f.organisations[0].purposes.push({ key: 'marketing', name: 'Again' }),
        ['$.organisations[0].purposes[2]', 'duplicate', 'marketing'],
      ],
    ];
    const before = await snapshot();
    for (const [label, spoil, expected] of cases) {
      const file = demo();
      spoil(file);
      const res = await importFile('bad.json', file);
      expect(res.code, label).toBe(1);
      expect(res.stdout, label).toBe('');
      for (const text of expected) expect(res.stderr, label).toContain(text);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('a file that is not JSON, or that does not exist, is refused with a message naming the file', async () => {
    const broken = writeFile(store.dataDir, 'broken.json', '{"organisations": [');
    const notJson = await runCli(['import', broken], store.env);
    expect(notJson.code).not.toBe(0);
    expect(notJson.stdout).toBe('');
    expect(notJson.stderr).toContain(broken);
    expect(notJson.stderr).toMatch(/not valid JSON/i);
    const missing = `${store.dataDir}/no-such-file.json`;
    const absent = await runCli(['import', missing], store.env);
    expect(absent.code).not.toBe(0);
    expect(absent.stdout).toBe('');
    expect(absent.stderr).toContain(missing);
  });

  it('a value the schema admits but the database cannot store is refused naming its JSON path, without an SQL dump', async () => {
    const cases: Array<[(f: any) => void, string]> = [
      [(f) => (f.organisations[0].purposes[0].name = 'Market\u0000ing'), '$.organisations[0].purposes[0].name'],
      [(f) => (f.organisations[0].individuals[0].name = 'Ali\u0000ce'), '$.organisations[0].individuals[0].name'],
    ];
    for (const [spoil, at] of cases) {
      const file = demo();
      spoil(file);
      const res = await importFile('nul.json', file);
      expect(res.code, at).toBe(1);
      expect(res.stderr, at).toContain(at);
      // Neither SQL, nor bound parameters (a user's password hash among them), nor a stack trace.
      expect(res.stderr, at).not.toMatch(/Failed query|insert into|params:|\$argon2id|\bat .*\.js:\d+/);
    }
  });

  it('dataRetention.periodDays at the documented maximum of 36500 days is imported', async () => {
    const res = await importFile('century.json', {
      organisations: [{ key: 'century', name: 'Century', dataRetention: { enabled: true, periodDays: 36500 } }],
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).organisations.century.id).toMatch(UUID);
  });

  it('a user who is admin in one organisation and individual in another holds the role in one and the subscription in the other', async () => {
    const dual = { username: 'dual@both.example', password: 'dual-passphrase' };
    const res = await importFile('dual.json', {
      organisations: [
        { key: 'north', name: 'North', admins: [{ ...dual, roles: ['dpo'] }] },
        { key: 'south', name: 'South', individuals: [{ ...dual, name: 'Dual' }] },
      ],
    });
    expect(res.code, res.stderr).toBe(0);
    const ids = JSON.parse(res.stdout).organisations;
    expect(ids.north.users['dual@both.example']).toMatch(UUID);
    expect(ids.south.users['dual@both.example']).toBe(ids.north.users['dual@both.example']);
    await withServer(async (base) => {
      const admin = await call(`${base}/users/admin/login`, { body: dual });
      expect(admin.status).toBe(200);
      expect(admin.body.User.ID).toBe(ids.north.users['dual@both.example']);
      expect(admin.body.User.Roles).toEqual([{ RoleID: 2, OrgID: ids.north.id }]);
      expect(admin.body.User.Orgs.map((o: { OrgID: string; Name: string }) => [o.OrgID, o.Name])).toEqual([
        [ids.south.id, 'South'],
      ]);
      const individual = await call(`${base}/v1.1/users/login`, { body: dual });
      expect(individual.status).toBe(200);
    });
  });
});
