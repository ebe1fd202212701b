import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, onPostgres, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';
import { transactionCounter, whileTableHeld } from './helpers/pg-stats.js';

const s = {} as { t: TestAssent; org: ConsentOrg };
// One read slot, so that on PostgreSQL the parallel reads below wait for it and share statements;
// the test holds the records' table until the first read waits for it and the server has taken all
// 60 reads, so that they queue behind it however fast or loaded the machine is, and counts the
// transactions (test/helpers/pg-stats.ts).
// PGlite runs each statement to its end before the next request is read, so there every read runs
// alone, by design (one slot), and the test checks that path: it counts nothing there.
beforeAll(async () => {
  s.t = await startAssent({ ASSENT_DB_READ_SLOTS: '1' });
  s.org = await setUpConsentOrg(s.t);
});
afterAll(() => s.t?.stop());

// Under load, consent record reads that wait for a statement share one (src/consent/records/reads.ts). Each
// must still answer exactly what it answers alone: its own record, purpose and access decision.
describe(`consent record reads that share one statement each answer as if alone (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('60 parallel reads of two records, whole and by purpose, by the individual, the Dpo, an outsider and for unknown IDs, answer as the same reads one at a time', async () => {
    const { t, org } = s;
    const carolRecord = await consentIdOf(t, org, 'carol');
    const daveRecord = await consentIdOf(t, org, 'dave');
    // Different values per individual, so that a read answered with another key's row shows.
    const patch = (who: 'carol' | 'dave', record: string, value: string) =>
      call(`${consentsUrl(t, org, who)}/${record}/purposes/${org.marketing.id}/attributes/${org.marketing.email}`, {
        method: 'PATCH',
        token: org.tokens[who],
        body: { consented: value, days: 0 },
      });
    expect((await patch('carol', carolRecord, 'Allow')).status).toBe(200);
    expect((await patch('dave', daveRecord, 'AskMe')).status).toBe(200);

    const unknownUser = '01890000-0000-7000-8000-000000000000';
    const reads: Array<{ url: string; token: string }> = [
      { url: consentsUrl(t, org, 'carol'), token: org.tokens.carol! },
      { url: consentsUrl(t, org, 'dave'), token: org.tokens.dave! },
      { url: `${consentsUrl(t, org, 'carol')}/${carolRecord}`, token: org.tokens.dpo! },
      { url: `${consentsUrl(t, org, 'dave')}/${daveRecord}/purposes/${org.marketing.id}`, token: org.tokens.dave! },
      { url: `${consentsUrl(t, org, 'carol')}/${carolRecord}/purposes/${org.delivery.id}`, token: org.tokens.carol! },
      {
        url: `${consentsUrl(t, org, 'dave')}/${daveRecord}/purposes/${org.marketing.id}/status`,
        token: org.tokens.dave!,
      },
      {
        url: `${consentsUrl(t, org, 'carol')}/${carolRecord}/purposes/${org.marketing.id}/status`,
        token: org.tokens.carol!,
      },
      // Not allowed, or not there: each must keep its own answer inside a shared statement.
      { url: consentsUrl(t, org, 'carol'), token: org.tokens.mallory! },
      { url: consentsUrl(t, org, 'carol'), token: org.tokens.dave! },
      { url: `${consentsUrl(t, org, 'dave')}/${carolRecord}`, token: org.tokens.dpo! },
      { url: `${t.base}/organizations/${org.orgId}/users/${unknownUser}/consents`, token: org.tokens.dpo! },
      { url: `${t.base}/organizations/${org.otherOrgId}/users/${org.users.carol}/consents`, token: org.tokens.carol! },
    ];
    const alone: Awaited<ReturnType<typeof call>>[] = [];
    for (const r of reads) alone.push(await call(r.url, { token: r.token }));
    expect(alone.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 403, 403, 404, 404, 404]);
    expect(
      alone[0]!.body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === org.marketing.id).Consents.find(
        (c: any) => c.ID === org.marketing.email,
      ).Status.Consent,
    ).toBe('Allow');
    expect(alone[3]!.body.Consents.Consents.find((c: any) => c.ID === org.marketing.email).Status.Consent).toBe(
      'AskMe',
    );

    const order = Array.from({ length: 60 }, (_, i) => (i * 7) % reads.length);
    const readAll = () => Promise.all(order.map((k) => call(reads[k]!.url, { token: reads[k]!.token })));
    // The background workers' transactions (the job queue's polls, a few a second) would be counted
    // with the reads', more of them the slower the machine: this file's server needs none of them now.
    if (onPostgres) await t.ctx.stopWorkers();
    const counted = onPostgres ? await transactionCounter(t) : undefined;
    const queued = { pending: () => t.ctx.pending.consentReads(), expected: order.length };
    const together = await (onPostgres ? whileTableHeld(t, 'consent_records', readAll, queued) : readAll());
    // Batching happened: one statement (an autocommit transaction) per read would be 60.
    // With a slot per read (no batching) this counts 66 here.
    if (counted) expect(await counted()).toBeLessThanOrEqual(order.length / 2);
    together.forEach((answer, i) => {
      const expected = alone[order[i]!]!;
      expect({ read: order[i], status: answer.status, body: answer.body }).toEqual({
        read: order[i],
        status: expected.status,
        body: expected.body,
      });
    });
  });
});
