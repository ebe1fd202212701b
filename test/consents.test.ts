import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;
let carolRecord: string;

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
  carolRecord = await consentIdOf(t, org, 'carol');
});
afterAll(() => t?.stop());

const purposeUrl = (user: string, record: string, purpose: string) =>
  `${consentsUrl(t, org, user)}/${record}/purposes/${purpose}`;

describe('reading a consent record (docs/api.md "Permissions and consents")', () => {
  it('lists every purpose with attributes, with defaults from the lawful basis, counts and DataRetention', async () => {
    const res = await call(consentsUrl(t, org, 'dave'), { token: org.tokens.dave });
    expect(res.status).toBe(200);
    expect(res.body.OrgID).toBe(org.orgId);
    expect(res.body.UserID).toBe(org.users.dave);
    const purposes = res.body.ConsentsAndPurposes;
    // The purpose without attributes is left out (docs/api.md "Responses").
    expect(purposes.map((p: any) => p.Purpose.ID)).toEqual([org.marketing.id, org.delivery.id]);
    const [marketing, delivery] = purposes;
    expect(marketing.Count).toEqual({ Total: 2, Consented: 0 });
    expect(marketing.Consents.map((c: any) => [c.ID, c.Description, c.Status.Consent, c.Status.Consented])).toEqual([
      [org.marketing.email, 'Email', 'Disallow', 'Disallow'],
      [org.marketing.phone, 'Phone', 'Disallow', 'Disallow'],
    ]);
    expect(delivery.Purpose.LawfulUsage).toBe(true);
    expect(delivery.Count).toEqual({ Total: 1, Consented: 1 });
    expect(delivery.Consents[0].Status).toMatchObject({ Consent: 'Allow', Consented: 'Allow', Days: 0, Remaining: 0 });
    expect(delivery.DataRetention).toEqual({ Expiry: '' });
  });

  it('get-by-ID answers the same record without DataRetention', async () => {
    const res = await call(`${consentsUrl(t, org, 'carol')}/${carolRecord}`, { token: org.tokens.carol });
    expect(res.status).toBe(200);
    expect(res.body.ID).toBe(carolRecord);
    for (const p of res.body.ConsentsAndPurposes) expect(p).not.toHaveProperty('DataRetention');
  });

  it('the purpose consents record carries the purpose ID as ID, and the record as ConsentID', async () => {
    const res = await call(purposeUrl('carol', carolRecord, org.marketing.id), { token: org.tokens.carol });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ID: org.marketing.id,
      ConsentID: carolRecord,
      OrgID: org.orgId,
      UserID: org.users.carol,
      DataRetention: { Expiry: '' },
    });
    expect(res.body.Consents.Purpose.ID).toBe(org.marketing.id);
    expect(res.body.Consents.Consents).toHaveLength(2);
  });
});

describe('changing consents (docs/api.md "Permissions and consents")', () => {
  it('PATCH on one attribute answers exactly {Msg, Status: 200} and stores the normalised value', async () => {
    const res = await call(`${purposeUrl('carol', carolRecord, org.marketing.id)}/attributes/${org.marketing.email}`, {
      method: 'PATCH',
      token: org.tokens.carol,
      body: { Consented: 'allow', Days: 0 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Msg: 'Consent updated successfully', Status: 200 });
    const read = await call(purposeUrl('carol', carolRecord, org.marketing.id), { token: org.tokens.carol });
    expect(read.body.Consents.Count).toEqual({ Total: 2, Consented: 1 });
    expect(read.body.Consents.Consents[0].Status.Consented).toBe('Allow');
  });

  it('AskMe with days counts as consented and reports Days and Remaining', async () => {
    const res = await call(`${purposeUrl('carol', carolRecord, org.marketing.id)}/attributes/${org.marketing.phone}`, {
      method: 'PATCH',
      token: org.tokens.carol,
      body: { consented: 'Askme', days: 30 },
    });
    expect(res.status).toBe(200);
    const read = await call(purposeUrl('carol', carolRecord, org.marketing.id), { token: org.tokens.carol });
    expect(read.body.Consents.Consents[1].Status).toMatchObject({
      Consent: 'AskMe',
      Consented: 'AskMe',
      Days: 30,
      Remaining: 30,
    });
    expect(read.body.Consents.Count.Consented).toBe(2);
  });

  it('DataRetention.Expiry is the latest consent to the purpose plus the retention period, once retention is enabled', async () => {
    const retention = `${t.base}/organizations/${org.orgId}/data-retention`;
    expect((await call(retention, { token: org.tokens.owner, body: { RetentionPeriod: 86400 } })).status).toBe(200);
    const disabled = await call(purposeUrl('carol', carolRecord, org.marketing.id), { token: org.tokens.carol });
    expect(disabled.body.DataRetention).toEqual({ Expiry: '' });
    expect((await call(`${retention}/enable`, { method: 'POST', token: org.tokens.owner })).status).toBe(200);
    const read = await call(purposeUrl('carol', carolRecord, org.marketing.id), { token: org.tokens.carol });
    const latest = Math.max(...read.body.Consents.Consents.map((c: any) => Date.parse(c.Status.TimeStamp)));
    expect(read.body.DataRetention.Expiry).toBe(new Date(latest + 86400_000).toISOString());
    // A purpose nobody consented to has no expiry even with retention on.
    const dave = await call(consentsUrl(t, org, 'dave'), { token: org.tokens.dave });
    expect(dave.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === org.marketing.id).DataRetention).toEqual({
      Expiry: '',
    });
    expect((await call(`${retention}/disable`, { method: 'POST', token: org.tokens.owner })).status).toBe(200);
  });

  it('PATCH on a purpose sets the listed attributes and answers the update result with AllowAll', async () => {
    const res = await call(purposeUrl('carol', carolRecord, org.marketing.id), {
      method: 'PATCH',
      token: org.tokens.carol,
      body: { consentattributes: [{ attributeid: org.marketing.phone }], consented: 'Allow' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ID: carolRecord, OrgID: org.orgId, UserID: org.users.carol });
    expect(res.body.Purposes).toHaveLength(1);
    expect(res.body.Purposes[0].ID).toBe(org.marketing.id);
    expect(res.body.Purposes[0].AllowAll).toBe(true);
    expect(res.body.Purposes[0].Consents.map((c: any) => [c.TemplateID, c.Status.Consented])).toEqual([
      [org.marketing.email, 'Allow'],
      [org.marketing.phone, 'Allow'],
    ]);
  });

  it('purpose status: GET reads Allow while one attribute counts; POST sets every attribute with Days 0', async () => {
    const status = `${purposeUrl('carol', carolRecord, org.marketing.id)}/status`;
    expect((await call(status, { token: org.tokens.carol })).body).toEqual({ Consented: 'Allow' });
    const res = await call(status, { token: org.tokens.carol, body: { consented: 'DisAllow' } });
    expect(res.status).toBe(200);
    const marketing = res.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === org.marketing.id);
    expect(marketing.Consents.map((c: any) => [c.Status.Consented, c.Status.Days])).toEqual([
      ['Disallow', 0],
      ['Disallow', 0],
    ]);
    expect(marketing.DataRetention).toEqual({ Expiry: '' });
    expect((await call(status, { token: org.tokens.carol })).body).toEqual({ Consented: 'Disallow' });
  });

  it('a value outside the three is a 400 and changes nothing', async () => {
    const url = `${purposeUrl('carol', carolRecord, org.marketing.id)}/attributes/${org.marketing.email}`;
    for (const body of [
      { consented: 'Maybe', days: 0 },
      { consented: '', days: 0 },
      { consented: 'Allow', days: -1 },
      { consented: 'Maybe' },
      {},
      { days: 0 },
      { days: -3 },
      { Days: 36_501 },
    ]) {
      const res = await call(url, { method: 'PATCH', token: org.tokens.carol, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.Code).toBe(400);
    }
    const read = await call(purposeUrl('carol', carolRecord, org.marketing.id), { token: org.tokens.carol });
    expect(read.body.Consents.Count.Consented).toBe(0);
  });

  it('a purpose, attribute or consentID that is not of this organisation and user is a 404', async () => {
    const dave = await consentIdOf(t, org, 'dave');
    const cases = [
      `${purposeUrl('carol', dave, org.marketing.id)}/attributes/${org.marketing.email}`, // someone else's record ID
      `${purposeUrl('carol', carolRecord, org.delivery.id)}/attributes/${org.marketing.email}`, // attribute of another purpose
      `${purposeUrl('carol', carolRecord, '01a20000-0000-7000-8000-000000000000')}/attributes/${org.marketing.email}`,
      `${purposeUrl('carol', carolRecord, org.marketing.id)}/attributes/not-an-id`,
    ];
    for (const url of cases)
      expect(
        (await call(url, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'Allow', days: 0 } })).status,
        url,
      ).toBe(404);
  });
});

describe('who may read and change a consent record', () => {
  it('an API key of the organisation’s admin or developer acts for a subscribed individual', async () => {
    for (const who of ['developer', 'admin']) {
      const res = await call(
        `${purposeUrl('dave', await consentIdOf(t, org, 'dave'), org.delivery.id)}/attributes/${org.delivery.address}`,
        {
          method: 'PATCH',
          token: org.apiKeys[who],
          scheme: 'ApiKey',
          body: { consented: 'Allow', days: 0 },
        },
      );
      expect(res.status, who).toBe(200);
    }
  });

  it('staff sessions (not API keys) may read but not change; the Developer’s session may do neither', async () => {
    const daveRecord = await consentIdOf(t, org, 'dave');
    for (const who of ['owner', 'admin', 'dpo'])
      expect((await call(consentsUrl(t, org, 'dave'), { token: org.tokens[who] })).status, who).toBe(200);
    expect((await call(consentsUrl(t, org, 'dave'), { token: org.tokens.developer })).status).toBe(403);
    for (const who of ['owner', 'admin', 'dpo', 'developer']) {
      const res = await call(`${purposeUrl('dave', daveRecord, org.marketing.id)}/status`, {
        token: org.tokens[who],
        body: { consented: 'Allow' },
      });
      expect(res.status, who).toBe(403);
    }
    expect((await call(consentsUrl(t, org, 'dave'), { token: org.apiKeys.dpo, scheme: 'ApiKey' })).status).toBe(200);
    expect(
      (
        await call(`${purposeUrl('dave', daveRecord, org.marketing.id)}/status`, {
          token: org.apiKeys.dpo,
          scheme: 'ApiKey',
          body: { consented: 'Allow' },
        })
      ).status,
    ).toBe(403);
  });

  it('another individual, or another organisation’s admin API key, gets a 403 and changes nothing', async () => {
    const daveRecord = await consentIdOf(t, org, 'dave');
    const url = `${purposeUrl('dave', daveRecord, org.marketing.id)}/status`;
    expect((await call(url, { token: org.tokens.carol, body: { consented: 'Allow' } })).status).toBe(403);
    expect(
      (await call(url, { token: org.apiKeys.mallory, scheme: 'ApiKey', body: { consented: 'Allow' } })).status,
    ).toBe(403);
    expect((await call(consentsUrl(t, org, 'dave'), { token: org.tokens.carol })).status).toBe(403);
    expect((await call(url, { token: org.tokens.dave })).body).toEqual({ Consented: 'Disallow' });
  });

  it('the record of someone not subscribed is a 404 even to the Owner; an unknown organisation is a 404', async () => {
    expect((await call(consentsUrl(t, org, org.users.mallory!), { token: org.tokens.owner })).status).toBe(404);
    expect(
      (
        await call(`${t.base}/organizations/01a20000-0000-7000-8000-000000000000/users/${org.users.carol}/consents`, {
          token: org.tokens.carol,
        })
      ).status,
    ).toBe(404);
  });

  it('without a credential it is a 401', async () => {
    expect((await call(consentsUrl(t, org, 'carol'))).status).toBe(401);
  });
});
