import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';

let t: TestAssent;
let org: ConsentOrg;

beforeAll(async () => {
  t = await startAssent();
  org = await setUpConsentOrg(t);
});
afterAll(() => t?.stop());

// On PostgreSQL (TEST_DATABASE_URL, as CI runs it) the requests really run in parallel on a pool
// of connections; on PGlite they are serialised by the single connection, and the same checks hold.
describe(`simultaneous updates to one consent record never lose a change (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('60 parallel PATCHes on two attributes: every change has its event, each event’s old value is the previous new value, and the chain verifies', async () => {
    const record = await consentIdOf(t, org, 'carol');
    const base = `${consentsUrl(t, org, 'carol')}/${record}/purposes/${org.marketing.id}`;
    const attributes = [org.marketing.email, org.marketing.phone];
    const values = ['Allow', 'Disallow', 'AskMe'];
    const requests = Array.from({ length: 60 }, (_, i) => {
      const attribute = attributes[i % 2]!;
      const body = { consented: values[i % 3], days: i };
      return call(`${base}/attributes/${attribute}`, {
        method: 'PATCH',
        token: i % 4 === 0 ? org.apiKeys.developer : org.tokens.carol,
        scheme: i % 4 === 0 ? 'ApiKey' : 'Bearer',
        body,
      });
    });
    const answers = await Promise.all(requests);
    expect(answers.map((a) => a.status)).toEqual(Array(60).fill(200));

    const events: any[] = [];
    let url: string | undefined = `${consentsUrl(t, org, 'carol')}/history?limit=500`;
    while (url) {
      const page = await call(url, { token: org.tokens.carol });
      events.push(...page.body.Events);
      url = page.body.Links.Next;
    }
    expect(events).toHaveLength(60);
    const bySeq = [...events].sort((a, b) => a.Seq - b.Seq);
    expect(bySeq.map((e) => e.Seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const current = await call(base, { token: org.tokens.carol });
    for (const attribute of attributes) {
      const chain = bySeq.filter((e) => e.AttributeID === attribute);
      expect(chain).toHaveLength(30);
      expect(chain[0].OldValue).toBe('Disallow'); // the default of a consent-based purpose
      for (let i = 1; i < chain.length; i++) {
        // A lost update would show as an event whose old value is not what the previous change set.
        expect([chain[i].OldValue, chain[i].OldDays]).toEqual([chain[i - 1].NewValue, chain[i - 1].NewDays]);
      }
      const last = chain.at(-1);
      const shown = current.body.Consents.Consents.find((c: any) => c.ID === attribute);
      expect([shown.Status.Consent, shown.Status.Days]).toEqual([last.NewValue, last.NewDays]);
    }
    const verify = await call(`${t.base}/organizations/${org.orgId}/consents/history/verify`, {
      token: org.tokens.dpo,
    });
    expect(verify.body).toEqual({ Valid: true, Events: 60, FirstBrokenSeq: null, Reason: '' });
  });
});
