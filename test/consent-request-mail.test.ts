/**
 * The special consent request through the e-mail transport: a real SMTP server (`smtp-server`) on
 * loopback, and the outbox folder of the embedded default when no SMTP_URL is set.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startAssent, type TestAssent } from './helpers/assent.js';
import { type ConsentOrg, runConsentRequest, setUpConsentOrg } from './helpers/consent-org.js';

interface Delivered {
  to: string[];
  raw: string;
}

let smtp: SMTPServer;
let smtpPort: number;
const delivered: Delivered[] = [];
/** Recipients whose first mail the relay refuses (a 451 temporary failure). */
const refuseOnce = new Set<string>();

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuseOnce.delete(address.address))
        return callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
      callback();
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c) => (raw += c));
      stream.on('end', () => {
        delivered.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

async function runRequest(t: TestAssent, org: ConsentOrg) {
  const orgUrl = `${t.base}/organizations/${org.orgId}`;
  expect(
    (
      await call(`${orgUrl}/notification-transports`, {
        method: 'PUT',
        body: { email: { enabled: true } },
        token: org.tokens.owner,
      })
    ).status,
  ).toBe(200);
  for (const name of ['hana', 'ivan']) {
    const res = await call(`${orgUrl}/users`, {
      body: { username: `${name}@shop.example`, name, email: `${name}@shop.example` },
      token: org.tokens.owner,
    });
    expect(res.status).toBe(201);
  }
  return runConsentRequest(t, org, org.marketing.id);
}

describe('e-mail transport through SMTP (SMTP_URL)', () => {
  let t: TestAssent;
  let org: ConsentOrg;
  beforeAll(async () => {
    t = await startAssent({
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      ASSENT_WEBHOOK_RETRY_DELAY_SECONDS: '1',
      ASSENT_NOTIFY_BATCH_SIZE: '1',
    });
    org = await setUpConsentOrg(t);
  });
  afterAll(() => t?.stop());

  it('mails each individual with an address once, skips those without one, and retries a refused mail', async () => {
    refuseOnce.add('ivan@shop.example');
    const job = await runRequest(t, org);
    // carol and dave have no e-mail address: nothing can reach them.
    expect(job).toMatchObject({ State: 'completed', Notified: 2, Skipped: 2, Failed: 0 });
    expect(delivered.flatMap((d) => d.to).sort()).toEqual(['hana@shop.example', 'ivan@shop.example']);
    const mail = delivered.find((d) => d.to[0] === 'hana@shop.example')!.raw;
    expect(mail).toMatch(/^Subject: Shop asks you to review your consent: Marketing/m);
    expect(mail).toMatch(new RegExp(`Message-ID:\\s+<${job.ID}\\.[0-9a-f-]{36}@assent>`));
    expect(mail).toMatch(/You have not allowed the use of: Email, Phone\./);
  });
});

describe('e-mail transport to the outbox (embedded default, no SMTP_URL)', () => {
  it('writes one .eml file per notified individual into ASSENT_DATA_DIR/outbox, readable by the owner only', async () => {
    const t = await startAssent();
    try {
      const org = await setUpConsentOrg(t);
      const job = await runRequest(t, org);
      expect(job).toMatchObject({ Notified: 2, Skipped: 2 });
      const outbox = path.join(t.config.dataDir, 'outbox');
      const files = readdirSync(outbox).sort();
      expect(files).toHaveLength(2);
      for (const f of files) {
        expect(f).toMatch(new RegExp(`^${job.ID}\\.[0-9a-f-]{36}@assent\\.eml$`));
        const text = readFileSync(path.join(outbox, f), 'utf8');
        expect(text).toMatch(/^To: (hana|ivan)@shop\.example$/m);
      }
    } finally {
      await t.stop();
    }
  });
});
