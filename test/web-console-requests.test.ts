/**
 * The console's Consent requests pages over HTTP (docs/web.md "Console"): an Owner starts a special
 * consent request (docs/api.md "Permissions and consents") and follows its job's progress fragment until it ends, with the counts
 * of the API's job read; who may start and who may only read follows the API's access-policy rows;
 * bad input is a 400 page and starts nothing; stored names show as text.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/platform/db/open.js';
import { call } from './helpers/assent.js';
import { consoleSuite } from './helpers/consent-org.js';
import { type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

const s = consoleSuite({ ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1' });

let hook: Receiver;
/** The job the owner's first request started. */
let firstJob: string;
const page = () => `/console/${s.org.orgId}/requests`;
const jobCount = async () =>
  rowsOf<{ n: number }>(await s.t.store.db.execute(sql`SELECT count(*)::int AS n FROM consent_request_jobs`))[0]!.n;
const apiJob = async (jobId: string) =>
  (await call(`${s.t.base}/organizations/${s.org.orgId}/jobs/${jobId}`, { token: s.org.tokens.owner })).body;
const counts = (html: string) => /(\d+) notified, (\d+) skipped, (\d+) failed/.exec(html)?.slice(1).map(Number);

beforeAll(async () => {
  hook = await startReceiver();
  const res = await call(`${s.t.base}/organizations/${s.org.orgId}/notification-transports`, {
    method: 'PUT',
    body: { webhook: { url: hook.url } },
    token: s.org.tokens.owner,
  });
  expect(res.status).toBe(200);
});
afterAll(() => hook?.close());

describe('an owner starts a consent request and follows it live', () => {
  it('starts a request for a purpose; the progress fragment is polled until the job ends, with the API’s counts', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const start = await owner.get(page());
    expect(start.status).toBe(200);
    const html = await start.text();
    expect(html).toContain('Ask individuals about Marketing');
    expect(html).toContain('This purpose has no data attributes to ask about.');
    // The webhook answers slowly, so the job is still under way when its page is first read.
    hook.delayMs = 1500;
    const res = await owner.post(page(), { purposeid: s.org.marketing.id, _csrf: await owner.csrf() });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    firstJob = /\/requests\/([0-9a-f-]{36})$/.exec(location)![1]!;
    const jobPage = await (await owner.get(location)).text();
    const progressUrl = `${location}/progress`;
    expect(jobPage).toContain(`hx-get="${progressUrl}"`);
    expect(jobPage).toContain('hx-trigger="every 1s"');
    expect(jobPage).toMatch(/<progress id="job-bar" aria-describedby="job-counts">/);

    let fragment = '';
    const seen = await waitFor(
      async () => {
        const r = await owner.get(progressUrl);
        expect(r.status).toBe(200);
        fragment = await r.text();
        return fragment;
      },
      (f) => !f.includes('hx-trigger'),
    );
    hook.delayMs = 0;
    // The server stopped the polling: the last fragment has no trigger and says the job ended.
    expect(seen).not.toContain('hx-get');
    expect(seen).toContain('data-state="completed"');
    expect(seen.startsWith('<!doctype')).toBe(false);
    const job = await apiJob(firstJob);
    expect(job.State).toBe('completed');
    expect(counts(seen)).toEqual([job.Notified, job.Skipped, job.Failed]);
    // carol and dave decided nothing on the consent-based purpose: both are asked (docs/notifications.md).
    expect(job.Notified).toBe(2);
    expect(seen).toContain(`value="2" max="2"`);
    expect(seen).toContain('of 2 individuals');
    expect(job.AttributeIDs.sort()).toEqual([s.org.marketing.email, s.org.marketing.phone].sort());
    expect(hook.received.filter((r) => r.body.jobId === firstJob)).toHaveLength(2);
  });

  it('asks about the chosen attributes only', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(page(), {
      purposeid: s.org.marketing.id,
      attributeids: s.org.marketing.phone,
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(303);
    const jobId = res.headers.get('location')!.split('/').pop()!;
    expect((await apiJob(jobId)).AttributeIDs).toEqual([s.org.marketing.phone]);
    const html = await (await owner.get(res.headers.get('location')!)).text();
    expect(html).toMatch(/<dt>Data attributes<\/dt><dd>Phone<\/dd>/);
  });
});

describe('access follows the API access policy', () => {
  it('a DPO reads a job’s progress, sees no form but the header’s sign-out, and gets 403 when posting anyway', async () => {
    const dpo = await s.as('shop-dpo@shop.example');
    const html = await (await dpo.get(page())).text();
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain('action="/console/sign-out"');
    const job = await dpo.get(`${page()}/${firstJob}`);
    expect(job.status).toBe(200);
    expect(await job.text()).toContain('data-state="completed"');
    expect((await dpo.get(`${page()}/${firstJob}/progress`)).status).toBe(200);
    const before = await jobCount();
    const res = await dpo.post(page(), { purposeid: s.org.marketing.id, _csrf: await dpo.csrf() });
    expect(res.status).toBe(403);
    expect(await jobCount()).toBe(before);
  });

  it('an individual and a Developer (no `jobs.read`) get 403 on every page', async () => {
    for (const who of ['carol@shop.example', 'shop-dev@shop.example']) {
      const c = await s.as(who);
      expect((await c.get(page())).status).toBe(403);
      expect((await c.get(`${page()}/${firstJob}`)).status).toBe(403);
      expect((await c.get(`${page()}/${firstJob}/progress`)).status).toBe(403);
    }
  });

  it('staff of another organisation get 403 here, and cannot read this organisation’s job through their own', async () => {
    const mallory = await s.as('mallory@other.example');
    expect((await mallory.get(page())).status).toBe(403);
    expect((await mallory.get(`${page()}/${firstJob}/progress`)).status).toBe(403);
    const before = await jobCount();
    const token = /name="_csrf" value="([^"]+)"/.exec(
      await (await mallory.get(`/console/${s.org.otherOrgId}/requests`)).text(),
    )![1]!;
    expect((await mallory.post(page(), { purposeid: s.org.marketing.id, _csrf: token })).status).toBe(403);
    // Their own organisation's pages do not answer another organisation's job or purpose.
    expect((await mallory.get(`/console/${s.org.otherOrgId}/requests/${firstJob}/progress`)).status).toBe(404);
    const own = await mallory.post(`/console/${s.org.otherOrgId}/requests`, {
      purposeid: s.org.marketing.id,
      _csrf: token,
    });
    expect(own.status).toBe(404);
    expect(await jobCount()).toBe(before);
  });
});

describe('bad input', () => {
  it('is a 400 page and starts nothing: no purpose, an over-long attribute ID', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const before = await jobCount();
    const none = await owner.post(page(), { _csrf: token });
    expect(none.status).toBe(400);
    expect(none.headers.get('content-type')).toContain('text/html');
    const long = await owner.post(page(), {
      purposeid: s.org.marketing.id,
      attributeids: 'a'.repeat(65),
      _csrf: token,
    });
    expect(long.status).toBe(400);
    expect(await jobCount()).toBe(before);
  });

  it('an attribute of another purpose is the API’s 404, and an unknown job is 404', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = await jobCount();
    const res = await owner.post(page(), {
      purposeid: s.org.marketing.id,
      attributeids: s.org.delivery.address,
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(404);
    expect(await jobCount()).toBe(before);
    expect((await owner.get(`${page()}/01234567-89ab-7def-8123-456789abcdef`)).status).toBe(404);
    expect((await owner.get(`${page()}/not-a-job/progress`)).status).toBe(404);
  });

  it('a script in a stored purpose or attribute name shows as text', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const name = '<script>window.__xss=1</script>';
    const token = await owner.csrf();
    expect((await owner.post(`/console/${s.org.orgId}/purposes`, { name, _csrf: token })).status).toBe(303);
    const purposes = await call(`${s.t.base}/organizations/${s.org.orgId}/purposes`, { token: s.org.tokens.owner });
    const id = purposes.body.Purposes.find((p: { Name: string }) => p.Name === name).ID;
    const attr = await owner.post(`/console/${s.org.orgId}/attributes`, {
      consent: name,
      purposeids: id,
      _csrf: token,
    });
    expect(attr.status).toBe(303);
    const html = await (await owner.get(page())).text();
    expect(html).toContain('&lt;script>window.__xss=1&lt;/script>');
    expect(html).not.toContain(name);
  });
});
