/**
 * Consent history in the import file (docs/operations.md "Consent history"), through the real
 * `assent import` and the HTTP API of `assent serve`: imported events are evidence like live ones
 * (channel `import`, original instants, sealed into the hash chain, receipts), the record ends at
 * the last imported event, the trend draws them, a re-import adds nothing, and a bad file changes
 * nothing and names the JSON path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAssent } from './helpers/assent.js';
import { call } from './helpers/assent.js';
import { freshStore, runCli, type ServeProcess, startServe, type TestStore, writeFile } from './helpers/cli.js';
import { webSignIn } from './helpers/web-client.js';

const DAY = 86_400_000;
const NOW = Date.now();
/** An instant `days` days before the test started, RFC 3339 with milliseconds. */
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();
const OWNER = { username: 'owner@hist.example', password: 'hist-owner-passphrase' };

/** Ann's past: four changes of Marketing's attributes over 80 days, from two channels. */
const ANN = [
  { purpose: 'marketing', attribute: 'email', value: 'Allow', at: ago(80), channel: 'Shop iOS app' },
  { purpose: 'marketing', attribute: 'phone', value: 'AskMe', days: 30, at: ago(60) },
  { purpose: 'marketing', attribute: 'email', value: 'Disallow', at: ago(30), channel: 'shop.example web form' },
  { purpose: 'marketing', attribute: 'email', value: 'Allow', at: ago(5), by: 'system' },
];
/** Ben allows e-mail offers 70 days ago. */
const BEN = [{ purpose: 'marketing', attribute: 'email', value: 'Allow', at: ago(70) }];

/** The import file; `ann` and `ben` replace the individuals' histories. */
function file(ann: unknown[] = ANN, ben: unknown[] = BEN, extra: unknown[] = []) {
  return {
    clients: [{ clientId: 'hist-app' }],
    organisations: [
      {
        key: 'hist',
        name: 'History Shop',
        purposes: [
          {
            key: 'marketing',
            name: 'Marketing',
            attributes: [
              { key: 'email', name: 'Email' },
              { key: 'phone', name: 'Phone' },
            ],
          },
          { key: 'delivery', name: 'Delivery', lawfulUsage: true, attributes: [{ key: 'address', name: 'Address' }] },
        ],
        admins: [{ ...OWNER, name: 'Owner', roles: ['owner', 'admin', 'dpo'] }],
        individuals: [
          { username: 'ann@hist.example', password: 'hist-ann-passphrase', name: 'Ann', consentHistory: ann },
          { username: 'ben@hist.example', password: 'hist-ben-passphrase', name: 'Ben', consentHistory: ben },
          ...extra,
        ],
      },
    ],
  };
}

let store: TestStore;
let first: Awaited<ReturnType<typeof runCli>>;
let ids: {
  id: string;
  users: Record<string, string>;
  purposes: Record<string, any>;
  consentHistory?: { recorded: number; skipped: number };
};
const importFile = (content: unknown) =>
  runCli(['import', writeFile(store.dataDir, 'history.json', content)], store.env);
/** Every row the consent history and records hold, for "nothing changed". */
const consentRows = async () =>
  (
    await store.query<{ n: string }>(`select (select count(*) from consent_events) || '/' ||
      (select count(*) from attribute_consents) || '/' || (select count(*) from users) as n`)
  )[0]!.n;

/** Runs `fn` against an `assent serve` on the store with the owner's token, then stops it. */
async function withServer(fn: (server: ServeProcess, token: string) => Promise<void>): Promise<void> {
  const server = await startServe(store.env);
  try {
    const login = await call(`${server.base}/users/admin/login`, { body: OWNER });
    expect(login.status).toBe(200);
    await fn(server, login.body.Token.access_token);
  } finally {
    expect((await server.stop()).code).toBe(0);
  }
}

const historyOf = (server: ServeProcess, token: string, user: string) =>
  call(`${server.base}/organizations/${ids.id}/users/${ids.users[user]}/consents/history`, { token });

beforeAll(async () => {
  store = await freshStore();
  first = await importFile(file());
  if (first.code === 0) ids = JSON.parse(first.stdout).organisations.hist;
});
afterAll(() => store?.cleanup());

describe('assent import: consentHistory', { timeout: 180_000 }, () => {
  it('records each event and reports how many', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(ids.consentHistory).toEqual({ recorded: 5, skipped: 0 });
  });

  it('the history shows the events with channel import, their instants and channels, old values in order; the chain verifies; the record ends at the last event', async () => {
    await withServer(async (server, token) => {
      const res = await historyOf(server, token, 'ann@hist.example');
      expect(res.status).toBe(200);
      const events = res.body.Events.reverse(); // oldest first
      expect(events.map((e: any) => [e.TimeStamp, e.OldValue, e.NewValue, e.NewDays])).toEqual([
        [ANN[0]!.at, 'Disallow', 'Allow', 0],
        [ANN[1]!.at, 'Disallow', 'AskMe', 30],
        [ANN[2]!.at, 'Allow', 'Disallow', 0],
        [ANN[3]!.at, 'Disallow', 'Allow', 0],
      ]);
      expect(events.map((e: any) => e.Channel)).toEqual([
        { Endpoint: 'import', UserAgent: 'Shop iOS app' },
        { Endpoint: 'import', UserAgent: '' },
        { Endpoint: 'import', UserAgent: 'shop.example web form' },
        { Endpoint: 'import', UserAgent: '' },
      ]);
      expect(events.map((e: any) => e.Actor.Type)).toEqual(['individual', 'individual', 'individual', 'system']);
      expect(events[0].Actor.UserID).toBe(ids.users['ann@hist.example']);
      // Sealed in time order across the organisation: Ann's first event (80 days ago) before Ben's (70).
      const ben = (await historyOf(server, token, 'ben@hist.example')).body.Events[0];
      expect(events[0].Seq).toBe(1);
      expect(ben.Seq).toBe(2);

      const verify = await call(`${server.base}/organizations/${ids.id}/consents/history/verify`, { token });
      expect(verify.body).toEqual({ Valid: true, Events: 5, FirstBrokenSeq: null, Reason: '' });

      const receipt = await call(
        `${server.base}/organizations/${ids.id}/users/${ids.users['ann@hist.example']}/consents/history/${events[2].ID}/receipt`,
        { token },
      );
      expect(receipt.status).toBe(200);
      expect(receipt.body.Receipt.event).toMatchObject({ event_time: ANN[2]!.at, value: 'Disallow' });
      expect(receipt.body.Receipt.event.collection_method).toEqual({
        endpoint: 'import',
        user_agent: 'shop.example web form',
      });

      const record = await call(
        `${server.base}/organizations/${ids.id}/users/${ids.users['ann@hist.example']}/consents`,
        { token },
      );
      const marketing = record.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === ids.purposes.marketing.id);
      const email = marketing.Consents.find((a: any) => a.ID === ids.purposes.marketing.attributes.email).Status;
      expect(email).toMatchObject({ Consent: 'Allow', TimeStamp: ANN[3]!.at, Days: 0 });
      // The AskMe for 30 days given 60 days ago has run out: it reads Disallow, as a live one would.
      const phone = marketing.Consents.find((a: any) => a.ID === ids.purposes.marketing.attributes.phone).Status;
      expect(phone).toMatchObject({ Consent: 'Disallow', Days: 30 });
    });
  });

  it('the trend and the console chart draw the imported history over the window', async () => {
    await withServer(async (server, token) => {
      const trend = await call(`${server.base}/organizations/${ids.id}/consents/trend?days=90`, { token });
      expect(trend.status).toBe(200);
      const days: Array<{ Date: string; Changes: any; Totals: any }> = trend.body.Days;
      const on = (daysAgo: number) => days.find((d) => d.Date === ago(daysAgo).slice(0, 10))!;
      // 85 days ago nobody had decided; 75 days ago Ann allowed e-mail; 65 days ago Ben too.
      expect(on(85).Totals).toEqual({ Allow: 0, Disallow: 0, AskMe: 0 });
      expect(on(75).Totals.Allow).toBe(1);
      expect(on(65).Totals.Allow).toBe(2);
      expect(on(80).Changes.Allow).toBe(1);
      // 20 days ago: Ben's e-mail Allow, Ann's e-mail Disallow and her lapsed AskMe (Disallow).
      expect(on(20).Totals).toEqual({ Allow: 1, Disallow: 2, AskMe: 0 });
      expect(days.at(-1)!.Totals).toEqual({ Allow: 2, Disallow: 1, AskMe: 0 });
      expect(days.filter((d) => d.Totals.Allow > 0).length).toBeGreaterThan(70);

      const console = await webSignIn({ url: server.url } as TestAssent, OWNER);
      const html = await (await console.get(`/console/${ids.id}/consents`)).text();
      expect(html).toContain('<polyline');
      // 65 days ago: no change that day, two Allow at its end.
      expect(html).toContain(
        `<th scope="row">${ago(65).slice(0, 10)}</th><td>0</td><td>0</td><td>0</td><td>2</td><td>0</td><td>0</td>`,
      );
    });
  });

  it('re-running the same import records nothing again and changes nothing', async () => {
    const before = await consentRows();
    const again = await importFile(file());
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).organisations.hist.consentHistory).toEqual({ recorded: 0, skipped: 5 });
    expect(await consentRows()).toBe(before);
  });

  it('a file extended with later events records only those, after the recorded ones', async () => {
    const later = { purpose: 'marketing', attribute: 'phone', value: 'Allow', at: ago(1) };
    const more = await importFile(file([...ANN, later]));
    expect(more.code, more.stderr).toBe(0);
    expect(JSON.parse(more.stdout).organisations.hist.consentHistory).toEqual({ recorded: 1, skipped: 5 });
    await withServer(async (server, token) => {
      const [last] = (await historyOf(server, token, 'ann@hist.example')).body.Events;
      expect(last).toMatchObject({ TimeStamp: later.at, OldValue: 'Disallow', NewValue: 'Allow', Seq: 6 });
      const verify = await call(`${server.base}/organizations/${ids.id}/consents/history/verify`, { token });
      expect(verify.body).toMatchObject({ Valid: true, Events: 6 });
    });
  });

  const cases: Array<[string, unknown, RegExp]> = [
    [
      'an event in the future',
      file([
        ...ANN,
        { purpose: 'marketing', attribute: 'email', value: 'Allow', at: new Date(NOW + DAY).toISOString() },
      ]),
      /\$\.organisations\[0\]\.individuals\[0\]\.consentHistory\[4\]\.at: \S+ is in the future/,
    ],
    [
      'events out of order',
      file(ANN, [BEN[0], { purpose: 'marketing', attribute: 'phone', value: 'Allow', at: ago(71) }]),
      /\.individuals\[1\]\.consentHistory\[1\]\.at: \S+ is before the previous event of this individual/,
    ],
    [
      'an unknown purpose',
      file(ANN, [{ purpose: 'loyalty', attribute: 'email', value: 'Allow', at: ago(2) }]),
      /\.individuals\[1\]\.consentHistory\[0\]\.purpose: "loyalty" is not a purpose of this organisation/,
    ],
    [
      'an unknown data attribute',
      file(ANN, [{ purpose: 'delivery', attribute: 'email', value: 'Allow', at: ago(2) }]),
      /\.consentHistory\[0\]\.attribute: "email" is not a data attribute of purpose "delivery"/,
    ],
    [
      'a bad value',
      file(ANN, [{ purpose: 'marketing', attribute: 'email', value: 'Yes', at: ago(2) }]),
      /\.individuals\[1\]\.consentHistory\[0\]\.value: must be one of "Allow", "Disallow", "AskMe"/,
    ],
    [
      'an instant without a time zone',
      file(ANN, [{ purpose: 'marketing', attribute: 'email', value: 'Allow', at: '2026-01-31T12:00:00' }]),
      /\.consentHistory\[0\]\.at: must be an RFC 3339 date-time with a time zone/,
    ],
    [
      'a new event before one already recorded',
      file([...ANN.slice(0, 3), { purpose: 'marketing', attribute: 'email', value: 'Disallow', at: ago(10) }]),
      /\.individuals\[0\]\.consentHistory\[3\]\.at: \S+ is before the last event already recorded for this consent record/,
    ],
  ];
  it.each(cases)(
    'a file with %s is refused, naming the JSON path, and changes nothing',
    async (_name, bad, message) => {
      const before = await consentRows();
      // A new individual in the same file: a refusal must not create them either.
      const withNew = bad as ReturnType<typeof file>;
      withNew.organisations[0]!.individuals.push({
        username: 'cleo@hist.example',
        password: 'hist-cleo-passphrase',
        name: 'Cleo',
        consentHistory: [{ purpose: 'marketing', attribute: 'email', value: 'Allow', at: ago(3) }],
      });
      const res = await importFile(withNew);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(message);
      expect(await consentRows()).toBe(before);
    },
  );

  it('after a live change, a re-import skips what it recorded and refuses an event dated before that change', async () => {
    await withServer(async (server) => {
      const login = await call(`${server.base}/v1.1/users/login`, {
        body: { username: 'ben@hist.example', password: 'hist-ben-passphrase' },
      });
      const token = login.body.Token.access_token;
      const url = `${server.base}/organizations/${ids.id}/users/${ids.users['ben@hist.example']}/consents`;
      const record = await call(url, { token });
      const patch = await call(
        `${url}/${record.body.ID}/purposes/${ids.purposes.marketing.id}/attributes/${ids.purposes.marketing.attributes.email}`,
        { method: 'PATCH', token, body: { consented: 'Disallow' } },
      );
      expect(patch.status).toBe(200);
    });
    const same = await importFile(
      file([...ANN, { purpose: 'marketing', attribute: 'phone', value: 'Allow', at: ago(1) }]),
    );
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout).organisations.hist.consentHistory).toEqual({ recorded: 0, skipped: 6 });
    const before = await consentRows();
    const late = await importFile(
      file(ANN, [...BEN, { purpose: 'marketing', attribute: 'phone', value: 'Allow', at: ago(1) }]),
    );
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(
      /\.individuals\[1\]\.consentHistory\[1\]\.at: .* before the last event already recorded/,
    );
    expect(await consentRows()).toBe(before);
  });
  it('an imported Allow with days is AskMe for those days, and a Disallow with days keeps none (docs/api.md "AskMe with days")', async () => {
    const dora = {
      username: 'dora@hist.example',
      password: 'hist-dora-passphrase',
      name: 'Dora',
      consentHistory: [
        { purpose: 'marketing', attribute: 'email', value: 'Allow', days: 45, at: ago(2) },
        { purpose: 'marketing', attribute: 'phone', value: 'Disallow', days: 7, at: ago(1) },
      ],
    };
    const later = { purpose: 'marketing', attribute: 'phone', value: 'Allow', at: ago(1) };
    const res = await importFile(file([...ANN, later], BEN, [dora]));
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout).organisations.hist;
    expect(out.consentHistory).toEqual({ recorded: 2, skipped: 6 });
    await withServer(async (server) => {
      const login = await call(`${server.base}/v1.1/users/login`, { body: dora });
      const token = login.body.Token.access_token;
      const url = `${server.base}/organizations/${ids.id}/users/${out.users[dora.username]}/consents`;
      const record = await call(url, { token });
      const marketing = record.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === ids.purposes.marketing.id);
      const status = (key: string) =>
        marketing.Consents.find((a: any) => a.ID === ids.purposes.marketing.attributes[key]).Status;
      expect(status('email')).toMatchObject({ Consent: 'AskMe', Days: 45, Remaining: 43 });
      expect(status('phone')).toMatchObject({ Consent: 'Disallow', Days: 0 });
      const events = (await call(`${url}/history`, { token })).body.Events.reverse();
      expect(events.map((e: any) => [e.NewValue, e.NewDays])).toEqual([
        ['AskMe', 45],
        ['Disallow', 0],
      ]);
    });
  });
});
