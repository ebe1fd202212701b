/**
 * Consent reads and consented-user pages take an organisation's purposes and data attributes from a
 * per-process cache (src/consent/catalogue/cache.ts), checked against organisations.catalogue_version in
 * the same statement. These tests change the catalogue behind the server's back, with SQL as another
 * server process or the CLI import would, after warming the cache: only the version triggers
 * (migration 0009) can tell the server, and without them every assertion below reads a stale copy.
 */
import { describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { consentSuite, consentsUrl } from './helpers/consent-org.js';

const s = consentSuite();
const sql = (text: string, values: unknown[] = []) => s.t.store.raw(text, values);
const record = async () => (await call(consentsUrl(s.t, s.org, 'carol'), { token: s.org.tokens.carol })).body;
const purposeOf = (body: any, id: string) => body.ConsentsAndPurposes.find((p: any) => p.Purpose.ID === id);
const pageUrl = (purpose: string, attribute?: string) =>
  `${s.t.base}/organizations/${s.org.orgId}/purposes/${purpose}${attribute ? `/attributes/${attribute}` : ''}/consented/users`;

/** Adds a data attribute to a purpose the way the template API stores it, in SQL. */
async function linkNewAttribute(purposeId: string, name: string): Promise<string> {
  const { rows } = await sql(
    'INSERT INTO data_attributes (id, org_id, name) VALUES (gen_random_uuid(), $1, $2) RETURNING id',
    [s.org.orgId, name],
  );
  const id = (rows[0] as { id: string }).id;
  await sql('INSERT INTO purpose_attributes (purpose_id, attribute_id) VALUES ($1, $2)', [purposeId, id]);
  return id;
}

describe('the cached consent catalogue follows changes made by any process', () => {
  it('a consent record shows a purpose renamed, an attribute deleted and an attribute linked elsewhere at the next read', async () => {
    const before = purposeOf(await record(), s.org.marketing.id);
    expect(before.Purpose.Name).toBe('Marketing');
    expect(before.Consents.map((c: any) => c.ID)).toEqual([s.org.marketing.email, s.org.marketing.phone]);

    await sql('UPDATE purposes SET name = $2 WHERE id = $1', [s.org.marketing.id, 'Marketing (renamed elsewhere)']);
    expect(purposeOf(await record(), s.org.marketing.id).Purpose.Name).toBe('Marketing (renamed elsewhere)');

    await sql('UPDATE data_attributes SET deleted_at = now() WHERE id = $1', [s.org.marketing.phone]);
    expect(purposeOf(await record(), s.org.marketing.id).Consents.map((c: any) => c.ID)).toEqual([
      s.org.marketing.email,
    ]);

    const added = await linkNewAttribute(s.org.marketing.id, 'Postal address');
    const after = purposeOf(await record(), s.org.marketing.id);
    expect(after.Consents.map((c: any) => [c.ID, c.Description, c.Status.Consented])).toEqual([
      [s.org.marketing.email, 'Email', 'Disallow'],
      [added, 'Postal address', 'Disallow'],
    ]);
  });

  it('a purpose created elsewhere has its consented-users page at once, and a purpose deleted elsewhere is gone at once', async () => {
    expect((await call(pageUrl(s.org.delivery.id), { token: s.org.tokens.owner })).status).toBe(200); // cache warm
    const { rows } = await sql(
      `INSERT INTO purposes (id, org_id, name, lawful_usage)
       VALUES (gen_random_uuid(), $1, 'Warranty', true) RETURNING id`,
      [s.org.orgId],
    );
    const warranty = (rows[0] as { id: string }).id;
    const serial = await linkNewAttribute(warranty, 'Serial number');
    const page = await call(pageUrl(warranty, serial), { token: s.org.tokens.owner });
    expect(page.status).toBe(200);
    expect(page.body.Users.map((u: any) => u.ID)).toContain(s.org.users.carol);

    await sql('UPDATE purposes SET deleted_at = now() WHERE id = $1', [warranty]);
    expect((await call(pageUrl(warranty), { token: s.org.tokens.owner })).status).toBe(404);
    expect(purposeOf(await record(), warranty)).toBeUndefined();
  });

  it('a purpose without attributes in the cached copy is listed by the attributes linked to it elsewhere', async () => {
    const empty = await call(pageUrl(s.org.empty), { token: s.org.tokens.owner });
    expect(empty.status).toBe(200);
    expect(empty.body.Users).toEqual([]);
    await sql('UPDATE purposes SET lawful_usage = true WHERE id = $1', [s.org.empty]);
    await linkNewAttribute(s.org.empty, 'Loyalty number');
    // Lawful basis, nobody refused: every subscribed individual counts.
    const users = (await call(pageUrl(s.org.empty), { token: s.org.tokens.owner })).body.Users.map((u: any) => u.ID);
    expect(users).toEqual(expect.arrayContaining([s.org.users.carol, s.org.users.dave]));
  });

  it('a consented-users page never lists by an attribute that was unlinked elsewhere', async () => {
    const url = `${consentsUrl(s.t, s.org, 'dave')}`;
    const consentId = (await call(url, { token: s.org.tokens.dave })).body.ID;
    const { delivery } = s.org;
    const set = await call(`${url}/${consentId}/purposes/${delivery.id}/attributes/${delivery.address}`, {
      method: 'PATCH',
      token: s.org.tokens.dave,
      body: { consented: 'Disallow', days: 0 },
    });
    expect(set.status).toBe(200);
    const second = await linkNewAttribute(delivery.id, 'Delivery notes');
    // Lawful basis: Dave still counts for the purpose through the new attribute (default Allow).
    expect(
      (await call(pageUrl(delivery.id), { token: s.org.tokens.owner })).body.Users.map((u: any) => u.ID),
    ).toContain(s.org.users.dave);

    await sql('UPDATE purpose_attributes SET unlinked_at = now() WHERE purpose_id = $1 AND attribute_id = $2', [
      delivery.id,
      second,
    ]);
    // Only the address is left, and Dave refused it: a stale copy would still list him.
    expect(
      (await call(pageUrl(delivery.id), { token: s.org.tokens.owner })).body.Users.map((u: any) => u.ID),
    ).not.toContain(s.org.users.dave);
    expect((await call(pageUrl(delivery.id, second), { token: s.org.tokens.owner })).status).toBe(404);
  });
});
