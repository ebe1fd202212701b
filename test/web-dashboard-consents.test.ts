/**
 * The privacy dashboard's "My consents" page over HTTP (docs/web.md "Privacy dashboard"): it shows
 * the record of every organisation the individual is subscribed to, read in one statement
 * (src/consent/records/own.ts), and, when many pages are read at once (on PostgreSQL they then share a
 * statement, src/platform/db/batcher.ts), each browser still gets its own individual's records.
 */
import { describe, expect, it } from 'vitest';
import { call, login } from './helpers/assent.js';
import { consentSuite, setConsent } from './helpers/consent-org.js';
import { ALICE } from './helpers/session.js';
import { type WebClient, webSignIn } from './helpers/web-client.js';

const s = consentSuite();
const PASSWORD = 'consent-test-passphrase';

/** The attribute values a consents page shows, in order (the checked radio buttons). */
const checkedValues = (html: string) => [...html.matchAll(/value="(\w+)" checked/g)].map((m) => m[1]);

describe('the dashboard’s consents page', () => {
  it('shows every subscribed organisation’s record, and only those', async () => {
    const { t, org } = s;
    const carol = await webSignIn(t, { username: 'carol@shop.example', password: PASSWORD });
    const before = await (await carol.get('/dashboard/consents')).text();
    expect(before).toContain('Shop');
    expect(before).not.toContain('Acme');
    // Carol subscribes herself to Acme (the demo organisation): its record joins the page, in the User record's order.
    const { User: alice } = await login(t, ALICE.username, ALICE.password);
    const acmeId = (alice.Orgs as Array<{ OrgID: string }>)[0]!.OrgID;
    const added = await call(`${t.base}/organizations/${acmeId}/users`, {
      token: org.tokens.carol,
      body: { userid: org.users.carol },
    });
    expect(added.status).toBeLessThan(300);
    const after = await (await carol.get('/dashboard/consents')).text();
    const me = await call(`${t.base}/user`, { token: org.tokens.carol });
    const names = (me.body.User.Orgs as Array<{ Name: string }>).map((o) => o.Name);
    expect([...names].sort()).toEqual(['Acme', 'Shop']);
    const shown = [...after.matchAll(/<h2[^>]*>([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(shown.filter((n) => n === 'Acme' || n === 'Shop')).toEqual(names);
    // Unsubscribed again by Acme's owner: Acme's record leaves the page (the record itself stays).
    const { Token: owner } = await login(t, 'owner@acme.example', 'owner-passphrase');
    const removed = await call(`${t.base}/organizations/${acmeId}/users/${org.users.carol}`, {
      token: owner.access_token,
      method: 'DELETE',
    });
    expect(removed.status).toBeLessThan(300);
    expect(await (await carol.get('/dashboard/consents')).text()).not.toContain('Acme');
  });

  it('pages read at once each show their own individual’s record', async () => {
    const { t, org } = s;
    await setConsent(t, org, 'carol', org.marketing.id, org.marketing.email, 'Allow');
    await setConsent(t, org, 'dave', org.marketing.id, org.marketing.email, 'Disallow');
    const clients: Record<string, WebClient> = {
      carol: await webSignIn(t, { username: 'carol@shop.example', password: PASSWORD }),
      dave: await webSignIn(t, { username: 'dave@shop.example', password: PASSWORD }),
    };
    const alone: Record<string, string> = {};
    for (const [who, client] of Object.entries(clients))
      alone[who] = await (await client.get('/dashboard/consents')).text();
    // The two records differ (Carol's Email allowed, Dave's not), so a page showing the other's would differ too.
    expect(checkedValues(alone.carol!)).toContain('Allow');
    expect(checkedValues(alone.dave!)).not.toContain('Allow');
    const order = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 'carol' : 'dave'));
    const pages = await Promise.all(order.map(async (who) => (await clients[who]!.get('/dashboard/consents')).text()));
    expect(pages).toEqual(order.map((who) => alone[who]));
  });
});
