/**
 * The organisation audit log (docs/audit.md): each entry names its actor as they were (name and e-mail, kept after the
 * account is deleted), its source (`api`, `console`, `import`), target, request ID and client IP; the filters (action
 * prefix, actor by e-mail or ID, target, from/to); and the hash chain, whose verification names the first entry
 * changed, removed or cut off by SQL (docs/decisions/0033-audit-log-chain.md). Both stores.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runImport } from '../src/app/organisations-as-code/import.js';
import { redirectUriImport } from '../src/federation/openid/redirect-uris.js';
import { call, demoImport, login } from './helpers/assent.js';
import { consoleSuite, runConsentRequest } from './helpers/consent-org.js';

const s = consoleSuite();
const api = (path: string) => `${s.t.base}/organizations/${s.org.orgId}${path}`;
type Entry = Record<string, unknown> & { ID: string; Seq: number; Action: string };
const entries = async (query = '', token = s.org.tokens.owner): Promise<Entry[]> => {
  const res = await call(api(`/audit-log${query}`), { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.Entries;
};
const verify = async (token = s.org.tokens.dpo) => {
  const res = await call(api('/audit-log/verify'), { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    Valid: boolean;
    Entries: number;
    FirstBrokenSeq: number | null;
    FirstBrokenID: string;
    Reason: string;
  };
};
const exec = (q: ReturnType<typeof sql>) => s.t.store.db.execute(q);
/** Creates a purpose through the API; returns its ID. */
const createPurpose = async (orgId: string, token: string, name: string): Promise<string> => {
  const url = `${s.t.base}/organizations/${orgId}/purposes`;
  const created = await call(url, { method: 'POST', token, body: { purposes: [{ name, lawfulusage: false }] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.Organization.Purposes.find((p: { Name: string }) => p.Name === name).ID;
};
/** Creates a purpose through the API as `who` and deletes it; returns its ID and the DELETE's `X-Request-Id`. */
const purposeDeletedBy = async (who: string, name: string) => {
  const id = await createPurpose(s.org.orgId, s.org.tokens[who]!, name);
  const gone = await call(api(`/purposes/${id}`), { method: 'DELETE', token: s.org.tokens[who] });
  expect(gone.status).toBe(204);
  return { id, requestId: gone.headers.get('x-request-id')! };
};

describe('an entry says who acted, from where, on what', () => {
  it('an API change: source api, the actor by name and e-mail, the target, the request ID and the client IP', async () => {
    const { id, requestId } = await purposeDeletedBy('owner', 'Audited by the API');
    const [entry] = await entries(`?action=purpose.delete&target=${id}`);
    expect(entry).toMatchObject({
      Action: 'purpose.delete',
      Source: 'api',
      ActorUserID: s.org.users.owner,
      ActorEmail: 'shop-owner@shop.example',
      TargetType: 'purpose',
      TargetID: id,
      RequestID: requestId,
      ClientIP: '127.0.0.1',
      Detail: { purposeId: id, name: 'Audited by the API' },
    });
    expect(entry!.Seq).toBeGreaterThan(0);
    expect(entry!.Link).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a console change says console; an import says import, with no actor', async () => {
    const id = await createPurpose(s.org.orgId, s.org.tokens.owner!, 'Deleted in the console');
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.post(`/console/${s.org.orgId}/purposes/${id}/delete`, {
      confirm: 'on',
      _csrf: await owner.csrf(),
    });
    expect(res.status).toBeLessThan(400);
    expect((await entries(`?target=${id}`))[0]).toMatchObject({ Action: 'purpose.delete', Source: 'console' });

    // An import (the CLI's `assent import` runs this) names no actor and says import.
    const file = demoImport();
    (file.organisations[0] as Record<string, unknown>).redirectUris = ['https://imported.example/cb'];
    await runImport(s.t.store.db, file, s.t.config.argon2, redirectUriImport);
    const acme = s.t.ids.organisations.acme!.id;
    const token = (await login(s.t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
    const log = await call(`${s.t.base}/organizations/${acme}/audit-log?action=idp.`, { token });
    expect(log.body.Entries[0]).toMatchObject({
      Action: 'idp.app-redirect-uris.update',
      Source: 'import',
      ActorUserID: '',
      ActorEmail: '',
      RequestID: '',
      ClientIP: '',
    });
  });

  it('an import records what it creates and changes in the catalogue, source import, and nothing for what it repeats', async () => {
    const acme = s.t.ids.organisations.acme!.id;
    const token = (await login(s.t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
    const catalogue = async () =>
      (await call(`${s.t.base}/organizations/${acme}/audit-log?action=purpose.&limit=500`, { token })).body
        .Entries as Entry[];
    const before = (await catalogue()).length;
    const file = demoImport();
    const org = file.organisations[0] as { purposes: Array<Record<string, unknown>> };
    org.purposes.push({ key: 'imported', name: 'Imported', attributes: [{ key: 'city', name: 'City' }] });
    await runImport(s.t.store.db, file, s.t.config.argon2, redirectUriImport);
    const [created] = await catalogue();
    expect(created).toMatchObject({
      Action: 'purpose.create',
      Source: 'import',
      ActorUserID: '',
      Changes: { name: { old: null, new: 'Imported' } },
    });
    const attribute = (
      await call(`${s.t.base}/organizations/${acme}/audit-log?action=template.create&limit=1`, { token })
    ).body.Entries[0];
    expect(attribute).toMatchObject({ Source: 'import', Changes: { name: { old: null, new: 'City' } } });
    // The same file again: nothing; a changed description: one purpose.update with just that.
    await runImport(s.t.store.db, file, s.t.config.argon2, redirectUriImport);
    expect(await catalogue()).toHaveLength(before + 1);
    org.purposes.at(-1)!.description = 'Now described';
    await runImport(s.t.store.db, file, s.t.config.argon2, redirectUriImport);
    const [updated] = await catalogue();
    expect(updated).toMatchObject({
      Action: 'purpose.update',
      Changes: { description: { old: '', new: 'Now described' } },
    });
    expect(Object.keys(updated!.Changes as object)).toEqual(['description']);
  });

  it('keeps naming an actor whose account was deleted, by the name and e-mail they had', async () => {
    const { id } = await purposeDeletedBy('admin', 'Deleted by someone who left');
    const gone = await call(`${s.t.base}/users/unregister`, { method: 'POST', token: s.org.tokens.admin });
    expect(gone.status).toBe(204);
    const [entry] = await entries(`?target=${id}`);
    expect(entry).toMatchObject({ ActorUserID: s.org.users.admin, ActorEmail: 'shop-admin@shop.example' });
    // And the actor filter still finds it by that e-mail, in any case.
    const byEmail = await entries('?actor=SHOP-ADMIN@shop.example&action=purpose.');
    expect(byEmail.map((e) => e.ID)).toContain(entry!.ID);
  });
});

describe('filters', () => {
  it('an action ending in a dot is a prefix; without one, exact', async () => {
    await purposeDeletedBy('owner', 'For the prefix filter');
    const prefixed = await entries('?action=purpose.&limit=100');
    expect(prefixed.length).toBeGreaterThan(0);
    for (const e of prefixed) expect(e.Action.startsWith('purpose.')).toBe(true);
    expect(await entries('?action=purpose')).toEqual([]);
    // LIKE's wildcards are taken literally.
    expect(await entries('?action=%25.')).toEqual([]);
  });

  it('actor by user ID or e-mail; from and to bound the time; a malformed one is a 400', async () => {
    const { id } = await purposeDeletedBy('owner', 'For the time filter');
    const [entry] = await entries(`?target=${id}&action=purpose.delete`);
    const at = new Date(entry!.At as string);
    const byId = await entries(`?actor=${s.org.users.owner}&target=${id}&action=purpose.delete`);
    const byEmail = await entries(`?actor=shop-owner@shop.example&target=${id}&action=purpose.delete`);
    expect(byId.map((e) => e.ID)).toEqual([entry!.ID]);
    expect(byEmail.map((e) => e.ID)).toEqual([entry!.ID]);
    expect(await entries(`?actor=shop-dpo@shop.example&target=${id}`)).toEqual([]);
    const iso = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    const range = (q: string) => entries(`?target=${id}&action=purpose.delete&${q}`);
    expect(await range(`from=${iso(at.getTime())}&to=${iso(at.getTime() + 1)}`)).toHaveLength(1);
    expect(await range(`from=${iso(at.getTime() + 1)}`)).toEqual([]);
    expect(await range(`to=${iso(at.getTime())}`)).toEqual([]);
    for (const bad of [
      'from=yesterday',
      'to=2026-13-01',
      `from=${iso(at.getTime())}&to=${iso(at.getTime())}`,
      'actor=bob',
    ]) {
      const res = await call(api(`/audit-log?${bad}`), { token: s.org.tokens.owner });
      expect(res.status, bad).toBe(400);
    }
  });
});

describe('tamper evidence', () => {
  it('a Developer may not verify; Owner, Admin and Dpo may', async () => {
    expect((await call(api('/audit-log/verify'), { token: s.org.tokens.developer })).status).toBe(403);
    expect((await call(api('/audit-log/verify'), { token: s.org.tokens.carol })).status).toBe(403);
    expect((await verify(s.org.tokens.owner)).Valid).toBe(true);
  });

  it('the chain verifies; an entry changed by SQL is named as the first broken one, and so is one removed', async () => {
    await purposeDeletedBy('owner', 'Before the tampering');
    const before = await verify();
    expect(before).toMatchObject({ Valid: true, FirstBrokenSeq: null, FirstBrokenID: '', Reason: '' });
    expect(before.Entries).toBeGreaterThan(2);
    const all = await entries('?limit=100');
    const victim = all.find((e) => e.Seq === 2)!;
    await exec(sql`UPDATE org_audit_log SET detail = '{"name":"something else"}'::jsonb WHERE id = ${victim.ID}`);
    expect(await verify()).toMatchObject({ Valid: false, Entries: 1, FirstBrokenSeq: 2, FirstBrokenID: victim.ID });
    // Put back exactly as it was: it verifies again.
    await exec(sql`UPDATE org_audit_log SET detail = ${JSON.stringify(victim.Detail)}::jsonb WHERE id = ${victim.ID}`);
    expect((await verify()).Valid).toBe(true);
    // An entry removed: the gap is named.
    const third = all.find((e) => e.Seq === 3)!;
    const [row] = (
      (await exec(sql`DELETE FROM org_audit_log WHERE id = ${third.ID} RETURNING *`)) as unknown as {
        rows: Array<Record<string, unknown>>;
      }
    ).rows;
    const removed = await verify();
    expect(removed).toMatchObject({ Valid: false, Entries: 2, FirstBrokenSeq: 3 });
    expect(removed.Reason).toContain('entry 3 is missing');
    expect(row).toBeDefined();
  });

  it('the last entries cut off: the head names a later entry than the last found', async () => {
    const org = s.org.otherOrgId;
    const mallory = s.org.tokens.mallory;
    const check = async () =>
      (await call(`${s.t.base}/organizations/${org}/audit-log/verify`, { token: mallory })).body;
    // The setting-up import recorded Mallory's roles: the entries so far.
    const start = (await check()).Entries as number;
    for (const name of ['One', 'Two']) {
      const id = await createPurpose(org, mallory!, name);
      await call(`${s.t.base}/organizations/${org}/purposes/${id}`, { method: 'DELETE', token: mallory });
    }
    // Two purposes created and deleted: four entries more.
    const last = start + 4;
    expect(await check()).toMatchObject({ Valid: true, Entries: last });
    await exec(sql`DELETE FROM org_audit_log WHERE org_id = ${org} AND seq = ${last}`);
    const cut = await check();
    expect(cut).toMatchObject({ Valid: false, Entries: last - 1, FirstBrokenSeq: last, FirstBrokenID: '' });
    expect(cut.Reason).toContain(`the chain head names entry ${last}`);
  });
});

describe('what is recorded', () => {
  it('a purpose created and updated: its fields, then only the changed ones with old and new; no entry for no change', async () => {
    const id = await createPurpose(s.org.orgId, s.org.tokens.owner!, 'Recorded purpose');
    const [created] = await entries(`?target=${id}`);
    expect(created).toMatchObject({
      Action: 'purpose.create',
      TargetType: 'purpose',
      Changes: {
        name: { old: null, new: 'Recorded purpose' },
        description: { old: null, new: '' },
        lawfulUsage: { old: null, new: false },
        policyUrl: { old: null, new: '' },
      },
    });
    const body = { name: 'Recorded purpose', description: 'Now described', lawfulusage: false, policyurl: '' };
    const put = () => call(api(`/purposes/${id}`), { method: 'PUT', token: s.org.tokens.owner, body });
    expect((await put()).status).toBe(200);
    const [updated] = await entries(`?target=${id}`);
    expect(updated).toMatchObject({
      Action: 'purpose.update',
      ActorUserID: s.org.users.owner,
      Changes: { description: { old: '', new: 'Now described' } },
    });
    expect(Object.keys(updated!.Changes as object)).toEqual(['description']);
    expect((await put()).status).toBe(200);
    expect(await entries(`?target=${id}`)).toHaveLength(2);
  });

  it('a data attribute created and renamed, with its purposes', async () => {
    const created = await call(api('/templates'), {
      method: 'POST',
      token: s.org.tokens.owner,
      body: { templates: [{ consent: 'Recorded attribute', purposeids: [s.org.marketing.id] }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.Templates[0].ID as string;
    const put = await call(api(`/templates/${id}`), {
      method: 'PUT',
      token: s.org.tokens.owner,
      body: { consent: 'Renamed attribute', purposeids: [s.org.marketing.id] },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const [renamed, made] = await entries(`?target=${id}`);
    expect(made).toMatchObject({
      Action: 'template.create',
      TargetType: 'data_attribute',
      Changes: { name: { old: null, new: 'Recorded attribute' }, purposeIds: { old: null, new: [s.org.marketing.id] } },
    });
    expect(renamed).toMatchObject({
      Action: 'template.update',
      Changes: { name: { old: 'Recorded attribute', new: 'Renamed attribute' } },
    });
    expect(Object.keys(renamed!.Changes as object)).toEqual(['name']);
  });

  it('data retention: one entry per real change, the period in seconds', async () => {
    const before = (await entries('?action=retention.update')).length;
    const set = (path: string, body?: unknown) =>
      call(api(`/data-retention${path}`), { method: 'POST', token: s.org.tokens.owner, body });
    expect((await set('', { RetentionPeriod: 86_400 })).status).toBe(200);
    expect((await set('/enable')).status).toBe(200);
    expect((await set('/enable')).status).toBe(200);
    const changes = (await entries('?action=retention.update')).map((e) => e.Changes);
    expect(changes.length - before).toBe(2);
    expect(changes[0]).toEqual({ enabled: { old: false, new: true } });
    expect(changes[1]).toMatchObject({ periodSeconds: { new: 86_400 } });
  });

  it('an individual unsubscribed by staff, and one who deletes their account: named by ID only', async () => {
    const gone = await call(api(`/users/${s.org.users.dave}`), { method: 'DELETE', token: s.org.tokens.owner });
    expect(gone.status).toBe(204);
    expect((await entries(`?target=${s.org.users.dave}`))[0]).toMatchObject({
      Action: 'individual.unsubscribe',
      TargetType: 'individual',
      ActorUserID: s.org.users.owner,
    });
    const left = await call(`${s.t.base}/users/unregister`, { method: 'POST', token: s.org.tokens.carol });
    expect(left.status).toBe(204);
    const [deleted] = await entries(`?target=${s.org.users.carol}&action=individual.delete`);
    expect(deleted).toMatchObject({ ActorUserID: s.org.users.carol, ActorName: '', ActorEmail: '', Source: 'api' });
    expect(JSON.stringify(deleted)).not.toContain('carol@');
  });

  it('an import records the staff roles and the individuals it adds, once: source import, no actor', async () => {
    const file = {
      organisations: [
        {
          key: 'shop',
          name: 'Shop',
          admins: [{ username: 'imported-dpo@shop.example', password: 'imported staff passphrase', roles: ['dpo'] }],
          individuals: [{ username: 'imported-one@shop.example', password: 'imported individual passphrase' }],
        },
      ],
    };
    const result = await runImport(s.t.store.db, file, s.t.config.argon2, redirectUriImport);
    const users = result.organisations.shop!.users;
    const dpo = users['imported-dpo@shop.example']!;
    const one = users['imported-one@shop.example']!;
    expect((await entries(`?target=${dpo}`))[0]).toMatchObject({
      Action: 'staff.roles.update',
      Source: 'import',
      ActorUserID: '',
      TargetType: 'staff',
      Changes: { roles: { old: [], new: [2] } },
    });
    expect((await entries(`?target=${one}`))[0]).toMatchObject({
      Action: 'individual.add',
      Source: 'import',
      TargetType: 'individual',
    });
    // The same file again changes nothing, and records nothing.
    const before = (await entries('?action=staff.')).length + (await entries('?action=individual.add')).length;
    await runImport(s.t.store.db, file, s.t.config.argon2, redirectUriImport);
    const after = (await entries('?action=staff.')).length + (await entries('?action=individual.add')).length;
    expect(after).toBe(before);
  });

  it('a special consent request: started by its actor with the attributes, completed by the system with the counts', async () => {
    const job = await runConsentRequest(s.t, s.org, s.org.marketing.id);
    expect(job.State).toBe('completed');
    const [done, started] = await entries(`?target=${job.ID}`);
    expect(started).toMatchObject({
      Action: 'consent-request.start',
      ActorUserID: s.org.users.owner,
      TargetType: 'consent_request',
      Detail: { purposeId: s.org.marketing.id },
    });
    const asked = (started!.Detail as { attributeIds: string[] }).attributeIds;
    expect([...asked].sort()).toEqual([...job.AttributeIDs].sort());
    expect(asked).toContain(s.org.marketing.email);
    expect(done).toMatchObject({
      Action: 'consent-request.complete',
      Source: 'system',
      ActorUserID: '',
      RequestID: '',
      ClientIP: '',
      Detail: { notified: job.Notified ?? 0, skipped: job.Skipped, failed: job.Failed ?? 0 },
    });
  });
});

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF rows) into rows of fields. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (quoted) {
      if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

/** GETs an export through the API: status, headers and the text as sent. */
const download = async (query: string, token = s.org.tokens.owner) => {
  const res = await fetch(api(`/audit-log/export?${query}`), { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

describe('export', () => {
  it('CSV: every filtered entry oldest first, quoted as RFC 4180, a formula-like name neutralised', async () => {
    // A staff member whose name a spreadsheet would run as a formula.
    const renamed = await call(`${s.t.base}/user`, {
      method: 'PATCH',
      token: s.org.tokens.owner,
      body: { name: '=HYPERLINK("https://evil.example","x")' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    await purposeDeletedBy('owner', 'Exported, with "quotes", commas');
    const res = await download('format=csv&action=purpose.', s.org.tokens.dpo);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="audit-log-${s.org.orgId}.csv"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const rows = parseCsv(res.text);
    expect(rows[0]!.slice(0, 4)).toEqual(['Seq', 'ID', 'At', 'Action']);
    const all = await entries('?action=purpose.&limit=500');
    expect(rows.slice(1).map((r) => r[1])).toEqual(all.map((e) => e.ID).reverse());
    const last = rows.at(-1)!;
    expect(last[3]).toBe('purpose.delete');
    expect(last[7]).toBe(`'=HYPERLINK("https://evil.example","x")`);
    expect(JSON.parse(last[12]!)).toMatchObject({ name: 'Exported, with "quotes", commas' });
  });

  it('JSON lines: one entry per line, as the API shows it; bad filters and roles refused', async () => {
    const res = await download('format=jsonl&action=purpose.delete');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jsonl; charset=utf-8');
    const lines = res.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const all = await entries('?action=purpose.delete&limit=500');
    expect(lines).toEqual(all.reverse());
    for (const bad of ['format=xml', 'format=csv&from=soon', 'format=csv&actor=nobody']) {
      const refused = await download(bad);
      expect(refused.status, bad).toBe(400);
      expect(JSON.parse(refused.text).Message, bad).toBeTruthy();
    }
    expect((await download('format=csv', s.org.tokens.developer)).status).toBe(403);
  });

  it('the console offers the same files for the filters on the page', async () => {
    const owner = await s.as('shop-owner@shop.example');
    const page = await (await owner.get(`/console/${s.org.orgId}/audit?action=purpose.`)).text();
    const href = /href="([^"]*audit\/export\?format=csv[^"]*)"/.exec(page)![1]!.replaceAll('&amp;', '&');
    expect(href).toBe(`/console/${s.org.orgId}/audit/export?format=csv&action=purpose.`);
    const file = await owner.get(href);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await file.text()).toBe((await download('format=csv&action=purpose.')).text);
  });
});

describe('the console page', () => {
  const page = async (query: string) => {
    const owner = await s.as('shop-owner@shop.example');
    const res = await owner.get(`/console/${s.org.orgId}/audit${query}`);
    return { status: res.status, html: (await res.text()).replaceAll('&quot;', '"') };
  };

  it('suggests the actions, their prefixes and the actors found in the log, and shows each change as old → new', async () => {
    const { status, html } = await page('?action=purpose.update');
    expect(status).toBe(200);
    for (const option of ['purpose.', 'purpose.update', 'purpose.delete', 'shop-owner@shop.example'])
      expect(html).toContain(`<option value="${option}"`);
    expect(html).toContain('<code>description</code>: "" → "Now described"');
  });

  it('filters by UTC days, both included; a day that is not one is a 400 page', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const rows = (html: string) => (html.match(/<tr>/g) ?? []).length - 1;
    expect(rows((await page(`?action=purpose.delete&from=${today}&to=${today}`)).html)).toBeGreaterThan(0);
    expect((await page(`?action=purpose.delete&from=${tomorrow}`)).html).toContain('No entries match these filters.');
    expect(rows((await page(`?action=purpose.delete&to=${tomorrow}`)).html)).toBeGreaterThan(0);
    const bad = await page('?from=2026-13-45');
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('from must be an RFC 3339 date-time');
  });
});
