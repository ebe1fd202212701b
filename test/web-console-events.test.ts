/**
 * The console's event webhooks over HTTP (docs/web.md "Console"; docs/events.md "Webhooks"), against a receiver on
 * loopback: an owner adds a webhook (its secret shown once, on the answer page only), edits, disables and enables
 * it, rotates its secret (both secrets sign for the overlap), pings it (the outcome on the page), reads its
 * deliveries after consent changes (newest first, paged, filtered to the failed ones) and redelivers one, and
 * deletes it after the confirmation step; every change is seen by the JSON API. The Dpo and the Developer read
 * every page without a form that posts and are refused every change; an individual and another organisation's
 * staff are refused the pages. Input the service refuses (an http or private address, no event type, a malformed
 * secret) is the form again with its 400 and the message by its field, and nothing changes; a post without the
 * CSRF token is refused.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consoleSuite, setConsent } from './helpers/consent-org.js';
import { type Received, type Receiver, startReceiver, waitFor } from './helpers/receiver.js';

const s = consoleSuite({ ASSENT_WEBHOOK_ALLOW_HTTP_HOSTS: '127.0.0.1', ASSENT_EVENT_WEBHOOK_FIRST_RETRY_SECONDS: '1' });
let receiver: Receiver;
let hookId: string;
let secret: string;
let previousSecret: string;

const list = () => `/console/${s.org.orgId}/integrations/events`;
const hookPage = (query = '') => `${list()}/${hookId}${query}`;
const api = (path = '') =>
  call(`${s.t.base}/organizations/${s.org.orgId}/webhooks${path}`, { token: s.org.tokens.owner });
/** The forms of a page that change something (method post), by action. */
const postForms = (html: string) => [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]);
/** The receiver's requests verified with `key` (Standard Webhooks), as a receiver in production checks them. */
const verifiedWith = (key: string, got: Received[]) =>
  got.filter((r) => {
    try {
      new Webhook(key).verify(r.raw, r.headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  });
const CONSENT = ['consent.allowed', 'consent.disallowed'];

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

describe('an owner manages a webhook from the console', () => {
  it('adds one: the secret is shown once on a no-store answer page, and in no later page or API answer', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const empty = await (await owner.get(list())).text();
    expect(empty).toContain('No webhooks registered.');
    expect(empty).toContain('<legend>Event types to deliver</legend>');
    expect(empty.match(/name="types"/g)).toHaveLength(13);
    const res = await owner.post(list(), {
      payloadurl: receiver.url,
      types: [...CONSENT, 'individual.subscribed'],
      secret: '',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    secret = /value="(whsec_[^"]+)"/.exec(html)![1]!;
    expect(html).toContain('it is shown this once');
    const hooks = (await api()).body.webhooks;
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      payloadUrl: receiver.url,
      subscribedEvents: [...CONSENT, 'individual.subscribed'],
    });
    expect(hooks[0].secret).toBeUndefined();
    hookId = hooks[0].id;
    expect(html).toContain(`href="${hookPage()}"`);
    for (const path of [list(), hookPage()]) {
      const again = await (await owner.get(path)).text();
      expect(again, path).toContain(receiver.url);
      expect(again, path).not.toContain(secret.slice(6));
    }
    expect(await (await owner.get(list())).text()).toMatch(/<td>Enabled<\/td>/);
    expect(JSON.stringify((await api(`/${hookId}`)).body)).not.toContain(secret.slice(6));
  });

  it('edits URL and types, disables it (reason admin) and enables it again; the form shows what is stored', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const url = `${receiver.url}?v=2`;
    const off = await owner.post(hookPage(), { payloadurl: url, types: CONSENT, disabled: 'on', _csrf: token });
    expect(off.status).toBe(303);
    expect(off.headers.get('location')).toBe(hookPage('?done=updated'));
    expect((await api(`/${hookId}`)).body).toMatchObject({
      payloadUrl: url,
      subscribedEvents: CONSENT,
      disabled: true,
      disabledReason: 'admin',
    });
    const page = await (await owner.get(hookPage('?done=updated'))).text();
    expect(page).toContain('Webhook saved.');
    expect(page).toContain('Disabled by an Owner or Admin (admin)');
    expect(page).toMatch(/name="types" value="consent.allowed" checked/);
    expect(page).not.toMatch(/name="types" value="individual.subscribed" checked/);
    expect(page).toMatch(/name="disabled" value="on" checked/);
    const on = await owner.post(hookPage(), { payloadurl: url, types: CONSENT, _csrf: token });
    expect(on.status).toBe(303);
    const enabled = (await api(`/${hookId}`)).body;
    expect(enabled).toMatchObject({ disabled: false, payloadUrl: url });
    expect(enabled.disabledReason).toBeUndefined();
  });

  it('pings it: the page shows the delivery’s outcome, and the receiver verifies the ping with the secret', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = receiver.received.length;
    const res = await owner.post(hookPage('/ping'), { _csrf: await owner.csrf() });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<p class="ok" role="status">Ping delivered: #1, [^<]+: HTTP 200, \d+ ms\./);
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.body).toMatchObject({ type: 'webhook.ping', data: { WebhookID: hookId } });
    expect(verifiedWith(secret, got)).toHaveLength(1);
    receiver.answer = () => 500;
    const failed = await (await owner.post(hookPage('/ping'), { _csrf: await owner.csrf() })).text();
    receiver.answer = () => 200;
    expect(failed).toMatch(/<p class="error" role="status">Ping not delivered: #1, [^<]+: HTTP 500[^<]*, \d+ ms\./);
  });

  it('rotates the secret: the new one is shown once; for the overlap both sign, as the page says', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(hookPage('/secret'), { _csrf: await owner.csrf() });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    previousSecret = secret;
    secret = /value="(whsec_[^"]+)"/.exec(html)![1]!;
    expect(secret).not.toBe(previousSecret);
    expect(html).toContain('The previous secret keeps signing too, as a second signature, for 24 hours');
    expect(await (await owner.get(hookPage())).text()).not.toContain(secret.slice(6));
    const before = receiver.received.length;
    expect((await owner.post(hookPage('/ping'), { _csrf: await owner.csrf() })).status).toBe(200);
    const got = receiver.received.slice(before);
    expect(verifiedWith(secret, got)).toHaveLength(1);
    expect(verifiedWith(previousSecret, got)).toHaveLength(1);
  });

  it('lists deliveries after consent changes, newest first with their attempts; filters the failed; redelivers one', async () => {
    const owner = await s.as('shop-owner@shop.example');
    // The receiver refuses the withdrawal (a 410 fails a delivery at once) and takes the rest.
    receiver.answer = (r) => (r.body.type === 'consent.disallowed' ? 410 : 200);
    await setConsent(s.t, s.org, 'carol', s.org.marketing.id, s.org.marketing.email, 'Allow');
    await setConsent(s.t, s.org, 'carol', s.org.marketing.id, s.org.marketing.email, 'Disallow');
    const settled = await waitFor(
      async () => (await api(`/${hookId}/deliveries`)).body.deliveries as any[],
      (ds) =>
        ds.some((d) => d.eventType === 'consent.disallowed' && d.state === 'failed') &&
        ds.some((d) => d.eventType === 'consent.allowed' && d.state === 'succeeded'),
    );
    const failed = settled.find((d) => d.eventType === 'consent.disallowed');
    const allowed = settled.find((d) => d.eventType === 'consent.allowed');
    expect(failed).toMatchObject({ state: 'failed', attempts: [{ attempt: 1, status: 410 }] });
    expect(allowed).toMatchObject({ state: 'succeeded' });

    const all = await (await owner.get(hookPage())).text();
    expect(all.indexOf(failed.eventId)).toBeLessThan(all.indexOf(allowed.eventId));
    expect(all).toMatch(/<li>#1, [^<]+: HTTP 410, \d+ ms<\/li>/);
    expect(all).toContain('webhook.ping');
    const onlyFailed = await (await owner.get(hookPage('?state=failed'))).text();
    expect(onlyFailed).toContain(failed.eventId);
    expect(onlyFailed).not.toContain(allowed.eventId);
    expect(onlyFailed).toMatch(/<option value="failed" selected/);
    expect(postForms(onlyFailed)).toContain(`${hookPage()}/deliveries/${failed.id}/redeliver`);

    receiver.answer = () => 200;
    const before = receiver.received.length;
    const res = await owner.post(hookPage(`/deliveries/${failed.id}/redeliver`), { _csrf: await owner.csrf() });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(hookPage('?done=redelivered'));
    const again = await waitFor(
      async () => (await api(`/${hookId}/deliveries`)).body.deliveries as any[],
      (ds) => ds.some((d) => d.redeliveryOf === failed.id && d.state === 'succeeded'),
    );
    expect(again[0]).toMatchObject({ redeliveryOf: failed.id, eventId: failed.eventId, state: 'succeeded' });
    const resent = receiver.received.slice(before).filter((r) => r.headers['webhook-id'] === failed.eventId);
    expect(verifiedWith(secret, resent)).toHaveLength(1);
    const page = await (await owner.get(hookPage('?done=redelivered'))).text();
    expect(page).toContain('Redelivery queued');
    expect(page).toContain('a redelivery');
  });

  it('pages the deliveries 20 at a time: “Older deliveries” keeps the filter and reaches the oldest', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    for (let i = 0; i < 16; i++) expect((await owner.post(hookPage('/ping'), { _csrf: token })).status).toBe(200);
    const deliveries = (
      await call(`${s.t.base}/organizations/${s.org.orgId}/webhooks/${hookId}/deliveries?limit=100`, {
        token: s.org.tokens.owner,
      })
    ).body.deliveries as any[];
    expect(deliveries.length).toBeGreaterThan(20);
    const first = await (await owner.get(hookPage())).text();
    expect(first.match(/\/redeliver"/g)).toHaveLength(20);
    const next = /<a href="([^"]+)#deliveries">Older deliveries<\/a>/.exec(first)![1]!.replaceAll('&amp;', '&');
    expect(next).toBe(hookPage(`?startid=${deliveries[19].id}`));
    const older = await (await owner.get(next)).text();
    expect(older).toContain(deliveries.at(-1).eventId);
    expect(older).not.toContain(deliveries[0].eventId);
    const failedOnly = await (await owner.get(hookPage(`?state=failed&startid=${deliveries[0].id}`))).text();
    expect(failedOnly).toMatch(/<option value="failed" selected/);
  });
});

describe('input the service refuses is the form again with its 400, the message by the field; nothing changes', () => {
  it('an http URL at a private address, a private https address, no event type and a malformed secret', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    const typedSecret = `whsec_${'A'.repeat(10)}`;
    const cases: Array<[Record<string, string | string[]>, string, string]> = [
      [{ payloadurl: 'http://10.0.0.1/', types: CONSENT }, 'payloadurl', 'payloadUrl must be an https URL'],
      [{ payloadurl: 'https://10.0.0.1/hook', types: CONSENT }, 'payloadurl', 'loopback, private, link-local'],
      [{ payloadurl: receiver.url }, 'types', 'Tick at least one event type.'],
      [{ payloadurl: receiver.url, types: CONSENT, secret: typedSecret }, 'secret', 'secret '],
    ];
    for (const [form, field, message] of cases) {
      const res = await owner.post(list(), { ...form, _csrf: token });
      expect(res.status, message).toBe(400);
      const html = await res.text();
      expect(html).toContain('<p class="error" role="alert">Nothing was saved: correct the field marked below.</p>');
      expect(html).toMatch(
        new RegExp(`<p id="new-${field}-error" class="field-error">[^<]*${message.replace('.', '\\.')}`),
      );
      if (field === 'types') expect(html).toMatch(/<fieldset id="new-types" aria-describedby="new-types-error">/);
      else expect(html).toMatch(new RegExp(`id="new-${field}"[^>]*aria-invalid="true"`));
      expect(html).toContain(`value="${form.payloadurl}"`);
      expect(html).not.toContain(typedSecret);
      if (form.types) expect(html).toMatch(/name="types" value="consent.disallowed" checked/);
    }
    expect((await api()).body.webhooks).toHaveLength(1);
  });

  it('an edit to a private address is the webhook’s page with its 400; the webhook is unchanged', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const before = (await api(`/${hookId}`)).body;
    const res = await owner.post(hookPage(), {
      payloadurl: 'http://10.0.0.1/',
      types: ['purpose.created'],
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('<h1>Event webhook</h1>');
    expect(html).toMatch(/id="edit-payloadurl"[^>]*value="http:\/\/10.0.0.1\/"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/name="types" value="purpose.created" checked/);
    expect((await api(`/${hookId}`)).body).toEqual(before);
  });

  it('posts without the CSRF token, or from another origin, are refused 403; nothing is created or sent', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const sent = receiver.received.length;
    expect((await owner.post(list(), { payloadurl: receiver.url, types: CONSENT })).status).toBe(403);
    expect((await owner.post(hookPage('/ping'), {})).status).toBe(403);
    expect((await owner.post(hookPage('/delete'), { confirm: 'on' })).status).toBe(403);
    const token = await owner.csrf();
    const evil = { origin: 'https://evil.example' };
    expect((await owner.post(hookPage('/ping'), { _csrf: token }, evil)).status).toBe(403);
    expect((await owner.post(hookPage('/ping'), { _csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await api()).body.webhooks).toHaveLength(1);
    expect(receiver.received.length).toBe(sent);
  });
});

describe('who may use the event webhook pages', () => {
  it('the Dpo and the Developer read the list and the webhook with its deliveries; no form posts, no secret', async () => {
    for (const who of ['shop-dpo@shop.example', 'shop-dev@shop.example']) {
      const c = await s.as(who);
      const home = await (await c.get(`/console/${s.org.orgId}/organisation`)).text();
      expect(home, who).toContain(`<a href="${list()}">Integrations</a>`);
      const listed = await c.get(list());
      expect(listed.status, who).toBe(200);
      const html = await listed.text();
      expect(html).toContain(receiver.url);
      expect(html).not.toContain('Add a webhook');
      expect(postForms(html), who).toEqual(['/console/sign-out']);
      const one = await c.get(hookPage('?state=failed'));
      expect(one.status, who).toBe(200);
      const page = await one.text();
      expect(page).toContain('Recent deliveries');
      expect(page).toContain('consent.disallowed');
      expect(page).toContain('<form method="get"');
      expect(postForms(page), who).toEqual(['/console/sign-out']);
      for (const key of [secret, previousSecret]) expect(page).not.toContain(key.slice(6));
    }
  });

  it('the Dpo and the Developer are refused every change (403); nothing changes and nothing is sent', async () => {
    const before = (await api(`/${hookId}`)).body;
    const delivery = (await api(`/${hookId}/deliveries`)).body.deliveries[0].id;
    const sent = receiver.received.length;
    for (const who of ['shop-dpo@shop.example', 'shop-dev@shop.example']) {
      const c = await s.as(who);
      const token = await c.csrf();
      for (const [path, body] of [
        [list(), { payloadurl: receiver.url, types: CONSENT }],
        [hookPage(), { payloadurl: receiver.url, types: CONSENT, disabled: 'on' }],
        [hookPage('/secret'), {}],
        [hookPage('/ping'), {}],
        [hookPage(`/deliveries/${delivery}/redeliver`), {}],
        [hookPage('/delete'), { confirm: 'on' }],
      ] as const)
        expect((await c.post(path, { ...body, _csrf: token })).status, `${who} ${path}`).toBe(403);
    }
    expect((await api(`/${hookId}`)).body).toEqual(before);
    expect((await api()).body.webhooks).toHaveLength(1);
    expect(receiver.received.length).toBe(sent);
  });

  it('an individual and another organisation’s staff get 403 on both pages', async () => {
    for (const who of ['carol@shop.example', 'mallory@other.example']) {
      const c = await s.as(who);
      expect((await c.get(list())).status, who).toBe(403);
      expect((await c.get(hookPage())).status, who).toBe(403);
    }
  });

  it('the owner’s Integrations page links to the event webhooks in its own navigation', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const html = await (await owner.get(`/console/${s.org.orgId}/integrations`)).text();
    expect(html).toMatch(/<nav class="sub" aria-label="Integrations">[\s\S]*Event webhooks/);
    expect(await (await owner.get(list())).text()).toContain(`<a href="${list()}" aria-current="page">`);
  });
});

describe('deleting a webhook takes the confirmation step', () => {
  it('without the box ticked: 400 and the webhook stays; ticked: gone (its page and the API answer 404)', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const token = await owner.csrf();
    expect((await owner.post(hookPage('/delete'), { _csrf: token })).status).toBe(400);
    expect((await api(`/${hookId}`)).status).toBe(200);
    const res = await owner.post(hookPage('/delete'), { confirm: 'on', _csrf: token });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${list()}?done=deleted`);
    expect((await api(`/${hookId}`)).status).toBe(404);
    const html = await (await owner.get(`${list()}?done=deleted`)).text();
    expect(html).toContain('Webhook deleted');
    expect(html).toContain('No webhooks registered.');
    expect((await owner.get(hookPage())).status).toBe(404);
  });
});
