import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;

beforeAll(async () => {
  t = await startAssent({ ASSENT_ASKME_SWEEP_SECONDS: '1' });
  org = await setUpConsentOrg(t);
});
afterAll(() => t?.stop());

describe('AskMe with days', () => {
  it('reads Disallow once it runs out, and the periodic sweep records the lapse as a system event', async () => {
    const record = await consentIdOf(t, org, 'carol');
    const purpose = `${consentsUrl(t, org, 'carol')}/${record}/purposes/${org.marketing.id}`;
    expect((await call(`${purpose}/attributes/${org.marketing.email}`, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'AskMe', days: 2 } })).status).toBe(200);
    expect((await call(`${purpose}/attributes/${org.marketing.phone}`, { method: 'PATCH', token: org.tokens.carol, body: { consented: 'AskMe', days: 0 } })).status).toBe(200);
    // Three days pass for the e-mail consent: its decision is moved back in the database.
    await t.store.db.execute(sql`UPDATE attribute_consents SET decided_at = decided_at - interval '3 days', expires_at = expires_at - interval '3 days'
      WHERE record_id = ${record} AND attribute_id = ${org.marketing.email}`);
    const read = await call(purpose, { token: org.tokens.carol });
    const [email, phone] = read.body.Consents.Consents;
    expect(email.Status).toMatchObject({ Consent: 'Disallow', Consented: 'Disallow', Days: 2, Remaining: 0 });
    expect(phone.Status).toMatchObject({ Consent: 'AskMe', Days: 0, Remaining: 0 }); // Days 0: no time limit
    expect(read.body.Consents.Count.Consented).toBe(1);

    let lapse: any;
    for (let i = 0; i < 50 && !lapse; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const history = await call(`${consentsUrl(t, org, 'carol')}/history?limit=1`, { token: org.tokens.carol });
      if (history.body.Events[0]?.Actor.Type === 'system') lapse = history.body.Events[0];
    }
    expect(lapse).toMatchObject({ AttributeID: org.marketing.email, OldValue: 'AskMe', NewValue: 'Disallow', OldDays: 2, NewDays: 0, Channel: { Endpoint: 'askme-expiry-sweep' } });
    const after = await call(purpose, { token: org.tokens.carol });
    expect(after.body.Consents.Consents[0].Status).toMatchObject({ Consent: 'Disallow', Days: 0 });
    const verify = await call(`${t.base}/organizations/${org.orgId}/consents/history/verify`, { token: org.tokens.dpo });
    expect(verify.body).toMatchObject({ Valid: true, Events: 3 });
  });
});
