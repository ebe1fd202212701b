/**
 * `days` is optional on the single-attribute PATCH (docs/api.md "Permissions and consents"; docs/api.md "Requests": "`days` is
 * optional"): every body shape the deployed SDKs send is stored as meant, and what is read back
 * afterwards is what the SDK's UI then shows.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consentIdOf, consentSuite, consentsUrl } from './helpers/consent-org.js';

const s = consentSuite();

/** PATCHes Carol's marketing e-mail attribute and returns the answer and the attribute as read back. */
async function patchAndRead(body: unknown) {
  const record = await consentIdOf(s.t, s.org, 'carol');
  const purpose = `${consentsUrl(s.t, s.org, 'carol')}/${record}/purposes/${s.org.marketing.id}`;
  const res = await call(`${purpose}/attributes/${s.org.marketing.email}`, {
    method: 'PATCH',
    token: s.org.tokens.carol,
    body,
  });
  const read = await call(purpose, { token: s.org.tokens.carol });
  expect(read.status).toBe(200);
  const attribute = read.body.Consents.Consents.find((c: any) => c.ID === s.org.marketing.email);
  return { res, status: attribute.Status, consented: read.body.Consents.Count.Consented as number };
}

describe('days optional on the single-attribute PATCH (docs/api.md)', () => {
  it('{"consented": "Allow"} without days stores Allow with Days 0', async () => {
    const { res, status, consented } = await patchAndRead({ consented: 'Allow' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Msg: 'Consent updated successfully', Status: 200 });
    expect(status).toMatchObject({ Consent: 'Allow', Consented: 'Allow', Days: 0, Remaining: 0 });
    expect(consented).toBe(1);
  });

  it('{"consented": "DisAllow"} without days (the iOS SDK) stores Disallow with Days 0', async () => {
    const { res, status, consented } = await patchAndRead({ consented: 'DisAllow' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Msg: 'Consent updated successfully', Status: 200 });
    expect(status).toMatchObject({ Consent: 'Disallow', Consented: 'Disallow', Days: 0 });
    expect(consented).toBe(0);
  });

  it('{"days": N} without consented (the iOS AskMe slider) stores AskMe for N days', async () => {
    const { res, status, consented } = await patchAndRead({ days: 14 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ Msg: 'Consent updated successfully', Status: 200 });
    expect(status).toMatchObject({ Consent: 'AskMe', Consented: 'AskMe', Days: 14, Remaining: 14 });
    expect(consented).toBe(1);
  });

  it('keys in any case: {"Days": N} alone, and {"Consented": "Askme", "Days": N}', async () => {
    expect((await patchAndRead({ Days: 3 })).status).toMatchObject({ Consented: 'AskMe', Days: 3 });
    const both = await patchAndRead({ Consented: 'Askme', Days: 7 });
    expect(both.res.status).toBe(200);
    expect(both.status).toMatchObject({ Consented: 'AskMe', Days: 7, Remaining: 7 });
  });

  it('{"consented": "AskMe"} without days is AskMe with no time limit (Days 0)', async () => {
    const { res, status } = await patchAndRead({ consented: 'AskMe' });
    expect(res.status).toBe(200);
    expect(status).toMatchObject({ Consented: 'AskMe', Days: 0, Remaining: 0 });
  });

  it('a body with neither key, or {"days": 0} alone, is a 400 and changes nothing', async () => {
    const before = await patchAndRead({ consented: 'Allow', days: 0 });
    for (const body of [{}, { days: 0 }, { Days: 0 }, { other: 'Allow' }]) {
      const { res, status } = await patchAndRead(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.Code).toBe(400);
      expect(typeof res.body.Message).toBe('string');
      expect(status, JSON.stringify(body)).toEqual(before.status);
    }
  });
});

/** Carol's newest consent history event, as the history API answers it. */
async function lastEvent() {
  const history = await call(`${consentsUrl(s.t, s.org, 'carol')}/history`, { token: s.org.tokens.carol });
  expect(history.status).toBe(200);
  return history.body.Events[0];
}

describe('days belong to AskMe (docs/api.md "AskMe with days")', () => {
  it('{"Consented":"Allow","Days":45} (the bb-consent dashboard’s AskMe control) is AskMe for 45 days, in the record and its history', async () => {
    const { res, status, consented } = await patchAndRead({ Consented: 'Allow', Days: 45 });
    expect(res.status).toBe(200);
    expect(status).toMatchObject({ Consent: 'AskMe', Consented: 'AskMe', Days: 45, Remaining: 45 });
    expect(consented).toBe(1);
    expect(await lastEvent()).toMatchObject({
      AttributeID: s.org.marketing.email,
      NewValue: 'AskMe',
      NewDays: 45,
    });
  });

  it('{"consented":"Disallow","days":7} stores Disallow with no days, in the record and its history', async () => {
    const { res, status, consented } = await patchAndRead({ consented: 'Disallow', days: 7 });
    expect(res.status).toBe(200);
    expect(status).toMatchObject({ Consent: 'Disallow', Consented: 'Disallow', Days: 0, Remaining: 0 });
    expect(consented).toBe(0);
    expect(await lastEvent()).toMatchObject({ NewValue: 'Disallow', NewDays: 0 });
  });

  it('{"consented":"Allow","days":0} stays a plain Allow', async () => {
    const { status } = await patchAndRead({ consented: 'Allow', days: 0 });
    expect(status).toMatchObject({ Consent: 'Allow', Days: 0 });
  });
});
