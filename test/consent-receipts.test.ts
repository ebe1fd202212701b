/**
 * Consent receipts (docs/consents.md "Consent receipts"): a history event as a signed ISO/IEC TS
 * 27560 record, `GET …/consents/history/{eventID}/receipt`, verified here as a third party would,
 * with jose and the JWKS fetched over HTTP.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { sql } from 'drizzle-orm';
import { createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxTokenTtl, rotateSigningKey } from '../src/identity/tokens/keys.js';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, consentIdOf, consentsUrl, setUpConsentOrg } from './helpers/consent-org.js';
import { fetchJwks, mintLike } from './helpers/jwt.js';

const TYP = 'consent-receipt+jwt';
const DAY_MS = 86_400_000;

let t: TestAssent;
let org: ConsentOrg;
let carolRecord: string;
/** Carol's events by what they did. */
const ev: Record<'allow' | 'askMe' | 'withdraw' | 'refuse', any> = {} as never;
let daveEvent: any;

const receiptUrl = (user: string, eventId: string, orgId = org.orgId) =>
  `${t.base}/organizations/${orgId}/users/${org.users[user] ?? user}/consents/history/${eventId}/receipt`;

async function change(user: string, record: string, purpose: string, attribute: string, body: unknown, as?: string) {
  const res = await call(`${consentsUrl(t, org, user)}/${record}/purposes/${purpose}/attributes/${attribute}`, {
    method: 'PATCH',
    token: as ?? org.tokens[user],
    scheme: as ? 'ApiKey' : undefined,
    body,
    headers: { 'user-agent': 'ReceiptTest/1.0' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function history(user: string) {
  const res = await call(`${consentsUrl(t, org, user)}/history`, { token: org.tokens[user] });
  expect(res.status).toBe(200);
  return res.body.Events as any[];
}

/** Verifies a receipt JWS as a third party: against the JWKS fetched now, `alg` and `typ` pinned. */
async function verifyReceipt(jws: string) {
  const jwks = createLocalJWKSet((await fetchJwks(t.url)) as JSONWebKeySet);
  return jwtVerify(jws, jwks, { algorithms: ['ES256'], typ: TYP, issuer: t.config.publicUrl });
}

beforeAll(async () => {
  t = await startAssent({ ASSENT_ASKME_SWEEP_SECONDS: '1' });
  org = await setUpConsentOrg(t);
  carolRecord = await consentIdOf(t, org, 'carol');
  const { marketing, delivery } = org;
  await change('carol', carolRecord, marketing.id, marketing.email, { consented: 'Allow' });
  await change(
    'carol',
    carolRecord,
    marketing.id,
    marketing.phone,
    { consented: 'AskMe', days: 7 },
    org.apiKeys.developer,
  );
  await change('carol', carolRecord, delivery.id, delivery.address, { consented: 'Disallow' });
  await change('carol', carolRecord, delivery.id, delivery.address, { consented: 'Disallow' });
  const events = await history('carol');
  [ev.refuse, ev.withdraw, ev.askMe, ev.allow] = events;
  const daveRecord = await consentIdOf(t, org, 'dave');
  await change('dave', daveRecord, marketing.id, marketing.email, { consented: 'AskMe', days: 2 });
  [daveEvent] = await history('dave');
});
afterAll(() => t?.stop());

describe('the receipt of a history event', () => {
  it('verifies with jose against the JWKS fetched over HTTP, and the JWS payload equals Receipt', async () => {
    const res = await call(receiptUrl('carol', ev.askMe.ID), { token: org.tokens.carol });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { payload, protectedHeader } = await verifyReceipt(res.body.JWS);
    expect(payload).toEqual(res.body.Receipt);
    const { kid } = await t.ctx.keys.signingKey();
    expect(protectedHeader).toEqual({ alg: 'ES256', kid, typ: TYP });
    const now = Math.floor(Date.now() / 1000);
    expect(Math.abs((payload.iat ?? 0) - now)).toBeLessThan(60);
  });

  it('maps the event to the ISO/IEC TS 27560 fields: value, days, expiry, purpose, attribute, time, actor, channel and chain', async () => {
    const { Receipt: r } = (await call(receiptUrl('carol', ev.askMe.ID), { token: org.tokens.carol })).body;
    const retention = (await call(`${t.base}/organizations/${org.orgId}/data-retention`, { token: org.tokens.owner }))
      .body.DataRetention;
    expect(r).toMatchObject({
      iss: t.config.publicUrl,
      schema_version: 'assent-consent-receipt/1 (ISO/IEC TS 27560:2023)',
      record_id: ev.askMe.ID,
      consent_record_id: carolRecord,
      pii_principal_id: org.users.carol,
      pii_controller: { party_id: org.orgId, party_name: 'Shop', party_role: 'dpv:DataController' },
      purpose: {
        purpose_id: org.marketing.id,
        name: 'Marketing',
        lawful_usage: false,
        lawful_basis: 'eu-gdpr:A6-1-a',
        deleted: false,
        retention_period: { enabled: retention.Enabled, seconds: retention.RetentionPeriod },
      },
      pii_information: { pii_attribute_id: org.marketing.phone, pii_type: 'Phone', deleted: false },
      event: {
        event_time: ev.askMe.TimeStamp,
        event_state: 'given',
        consent_status: 'dpv:ConsentGiven',
        value: 'AskMe',
        days: 7,
        validity_duration: 'P7D',
        expires_at: new Date(Date.parse(ev.askMe.TimeStamp) + 7 * DAY_MS).toISOString(),
        previous_value: 'Disallow',
        previous_days: 0,
        entity: { type: 'apiKey', user_id: org.users.developer, api_key_id: ev.askMe.Actor.APIKeyID },
        collection_method: { endpoint: ev.askMe.Channel.Endpoint, user_agent: 'ReceiptTest/1.0' },
        request_id: ev.askMe.RequestID,
      },
      evidence: { seq: ev.askMe.Seq, hash: ev.askMe.Hash, prev_link: ev.askMe.PrevLink, link: ev.askMe.Link },
    });
    expect(r.receipt_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ev.askMe.Actor.APIKeyID).not.toBe('');
    // Data minimisation: the individual is named by ID only.
    expect(JSON.stringify(r)).not.toContain('carol@shop.example');
  });

  it('names the state: Allow is given, Disallow after a lawful-basis default withdraws, Disallow again refuses', async () => {
    const state = async (e: any) =>
      (await call(receiptUrl('carol', e.ID), { token: org.tokens.carol })).body.Receipt as Record<string, any>;
    const allow = await state(ev.allow);
    expect(allow.event).toMatchObject({
      event_state: 'given',
      value: 'Allow',
      days: 0,
      validity_duration: null,
      expires_at: null,
      entity: { type: 'individual', user_id: org.users.carol, api_key_id: '' },
    });
    const withdraw = await state(ev.withdraw);
    expect(withdraw.purpose).toMatchObject({ name: 'Delivery', lawful_usage: true, lawful_basis: 'dpv:LegalBasis' });
    expect(withdraw.event).toMatchObject({
      event_state: 'withdrawn',
      consent_status: 'dpv:ConsentWithdrawn',
      value: 'Disallow',
      previous_value: 'Allow',
    });
    expect((await state(ev.refuse)).event).toMatchObject({
      event_state: 'refused',
      consent_status: 'dpv:ConsentRefused',
      previous_value: 'Disallow',
    });
  });

  it('an AskMe that ran out: the sweep’s system event is an expiry', async () => {
    const daveRecord = await consentIdOf(t, org, 'dave');
    await t.store.db.execute(sql`UPDATE attribute_consents
      SET decided_at = decided_at - interval '3 days', expires_at = expires_at - interval '3 days'
      WHERE record_id = ${daveRecord} AND attribute_id = ${org.marketing.email}`);
    let lapse: any;
    for (let i = 0; i < 50 && !lapse; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const [latest] = await history('dave');
      if (latest?.Actor.Type === 'system') lapse = latest;
    }
    expect(lapse).toBeDefined();
    const res = await call(receiptUrl('dave', lapse.ID), { token: org.tokens.dave });
    expect(res.body.Receipt.event).toMatchObject({
      event_state: 'expired',
      consent_status: 'dpv:ConsentExpired',
      value: 'Disallow',
      previous_value: 'AskMe',
      previous_days: 2,
      entity: { type: 'system', user_id: '', api_key_id: '' },
    });
  });

  it('ties the receipt to the chain: the event hash recomputes from the receipt, and the link from prev_link and hash', async () => {
    const { Receipt: r } = (await call(receiptUrl('carol', ev.askMe.ID), { token: org.tokens.carol })).body;
    const e = r.event;
    const content = {
      id: r.record_id,
      orgId: r.pii_controller.party_id,
      seq: r.evidence.seq,
      recordId: r.consent_record_id,
      userId: r.pii_principal_id,
      purposeId: r.purpose.purpose_id,
      attributeId: r.pii_information.pii_attribute_id,
      oldValue: e.previous_value,
      newValue: e.value,
      oldDays: e.previous_days,
      newDays: e.days,
      occurredAt: e.event_time,
      actor: {
        type: e.entity.type,
        ...(e.entity.user_id ? { userId: e.entity.user_id } : {}),
        ...(e.entity.api_key_id ? { apiKeyId: e.entity.api_key_id } : {}),
      },
      channel: { endpoint: e.collection_method.endpoint, userAgent: e.collection_method.user_agent },
      requestId: e.request_id,
    };
    const hash = createHash('sha256').update(canonicalize(content)!).digest();
    expect(hash.toString('hex')).toBe(r.evidence.hash);
    const link = createHash('sha256').update(Buffer.from(r.evidence.prev_link, 'hex')).update(hash).digest('hex');
    expect(link).toBe(r.evidence.link);
    const verify = await call(`${t.base}/organizations/${org.orgId}/consents/history/verify`, {
      token: org.tokens.dpo,
    });
    expect(verify.body).toMatchObject({ Valid: true, FirstBrokenSeq: null });
  });

  it('each call issues a new receipt of the same event', async () => {
    const a = (await call(receiptUrl('carol', ev.allow.ID), { token: org.tokens.carol })).body.Receipt;
    const b = (await call(receiptUrl('carol', ev.allow.ID), { token: org.tokens.carol })).body.Receipt;
    expect(a.receipt_id).not.toBe(b.receipt_id);
    expect({ ...a, receipt_id: '', iat: 0 }).toEqual({ ...b, receipt_id: '', iat: 0 });
  });
});

describe('who may fetch a receipt: as the history list (the individual, or the Dpo)', () => {
  it('the organisation’s Dpo: 200', async () => {
    const res = await call(receiptUrl('carol', ev.allow.ID), { token: org.tokens.dpo });
    expect(res.status).toBe(200);
    expect(res.body.Receipt.record_id).toBe(ev.allow.ID);
  });

  it('Owner, Admin, a Developer API key, another individual and another organisation’s owner: 403, no receipt', async () => {
    for (const [token, scheme] of [
      [org.tokens.owner, 'Bearer'],
      [org.tokens.admin, 'Bearer'],
      [org.apiKeys.developer, 'ApiKey'],
      [org.tokens.dave, 'Bearer'],
      [org.tokens.mallory, 'Bearer'],
    ] as const) {
      const res = await call(receiptUrl('carol', ev.allow.ID), { token, scheme });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ Code: 403, Message: 'You may not access this consent record' });
    }
  });

  it('no credential: 401', async () => {
    expect((await call(receiptUrl('carol', ev.allow.ID))).status).toBe(401);
  });
});

describe('what is not there is a 404, and names nothing', () => {
  it('another individual’s event under one’s own path, or under theirs for the Dpo: 404', async () => {
    const own = await call(receiptUrl('carol', daveEvent.ID), { token: org.tokens.carol });
    expect(own.status).toBe(404);
    expect(own.body).toEqual({ Code: 404, Message: 'Consent event not found' });
    expect((await call(receiptUrl('dave', ev.allow.ID), { token: org.tokens.dpo })).status).toBe(404);
  });

  it('an unknown or malformed event ID, an unknown user or organisation, another organisation: 404', async () => {
    const unknown = '0190a0a0-0000-7000-8000-000000000000';
    for (const [url, token] of [
      [receiptUrl('carol', unknown), org.tokens.carol],
      [receiptUrl('carol', 'not-an-id'), org.tokens.carol],
      [receiptUrl(unknown, ev.allow.ID), org.tokens.dpo],
      [receiptUrl('carol', ev.allow.ID, unknown), org.tokens.carol],
      [receiptUrl('carol', ev.allow.ID, 'not-an-id'), org.tokens.carol],
      // Carol's own event, under an organisation where she has no consent record.
      [receiptUrl('carol', ev.allow.ID, org.otherOrgId), org.tokens.carol],
    ] as const) {
      const res = await call(url, { token });
      expect(res.status, url).toBe(404);
      expect(res.body.Code).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(ev.allow.Hash);
    }
  });
});

describe('RFC 8725 §3.11: a receipt and a token can never stand in for each other', () => {
  it('a receipt JWS presented as a Bearer token (or an ApiKey) is refused with 401', async () => {
    const { JWS } = (await call(receiptUrl('carol', ev.allow.ID), { token: org.tokens.carol })).body;
    expect(decodeProtectedHeader(JWS).typ).toBe(TYP);
    for (const scheme of ['Bearer', 'ApiKey']) {
      const res = await call(`${t.base}/user`, { token: JWS, scheme });
      expect(res.status).toBe(401);
      expect(res.body.Code).toBe(401);
    }
  });

  it('the receipt typ alone is refused: a JWS with every access-token claim but typ consent-receipt+jwt is a 401', async () => {
    const control = await mintLike(t, org.tokens.carol);
    expect((await call(`${t.base}/user`, { token: control })).status).toBe(200);
    const typed = await mintLike(t, org.tokens.carol, { header: { typ: TYP } });
    expect((await call(`${t.base}/user`, { token: typed })).status).toBe(401);
  });

  it('an access token, signed by the same key, fails a receipt verification pinned to the receipt typ', async () => {
    await expect(verifyReceipt(org.tokens.carol)).rejects.toThrow(/typ/);
  });
});

describe('signing-key rotation', () => {
  it('a receipt signed before a rotation still verifies while the old key is published; new receipts use the new key', async () => {
    const before = (await call(receiptUrl('carol', ev.askMe.ID), { token: org.tokens.carol })).body;
    const oldKid = decodeProtectedHeader(before.JWS).kid;
    const newKid = await rotateSigningKey(t.store.db, t.ctx.master, maxTokenTtl(t.config));
    await t.ctx.keys.reload();
    const kids = (await fetchJwks(t.url)).keys.map((k) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect((await verifyReceipt(before.JWS)).payload).toEqual(before.Receipt);
    const after = (await call(receiptUrl('carol', ev.askMe.ID), { token: org.tokens.carol })).body;
    expect(decodeProtectedHeader(after.JWS).kid).toBe(newKid);
    expect((await verifyReceipt(after.JWS)).payload).toEqual(after.Receipt);
  });
});

describe('deleted purposes and data attributes', () => {
  it('a receipt still names them, marked deleted', async () => {
    const base = `${t.base}/organizations/${org.orgId}`;
    expect(
      (await call(`${base}/purposes/${org.delivery.id}`, { method: 'DELETE', token: org.tokens.owner })).status,
    ).toBe(204);
    expect(
      (await call(`${base}/templates/${org.delivery.address}`, { method: 'DELETE', token: org.tokens.owner })).status,
    ).toBe(204);
    const res = await call(receiptUrl('carol', ev.withdraw.ID), { token: org.tokens.carol });
    expect(res.status).toBe(200);
    expect(res.body.Receipt.purpose).toMatchObject({ purpose_id: org.delivery.id, name: 'Delivery', deleted: true });
    expect(res.body.Receipt.pii_information).toMatchObject({ pii_type: 'Address', deleted: true });
    expect((await verifyReceipt(res.body.JWS)).payload).toEqual(res.body.Receipt);
  });
});
