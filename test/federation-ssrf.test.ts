/**
 * SSRF rules of every request to an admin-configured IdP URL (docs/federation.md,
 * docs/decisions/0013-federation-broker.md): a jwksUrl at 169.254.169.254 or 10.0.0.1, and a host
 * name that a test DNS responder (on 127.0.0.1) maps to 10.0.0.1, are refused before any
 * connection is attempted. A spy on
 * net.Socket#connect in this process (where Assent runs) proves no connection was even tried,
 * and destroys any non-loopback attempt so no packet could leave.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch } from '../src/platform/net/guarded-fetch.js';
import { OutboundError, postOutbound } from '../src/platform/net/outbound.js';
import { call, login, startAssent, type TestAssent } from './helpers/assent.js';
import { configureFakeIdp, type FakeIdp, startDns, startFakeIdp } from './helpers/oidc.js';

const APP = 'https://app.example/cb';
const INTERNAL = 'idp-keys.internal.test';
let t: TestAssent;
let fake: FakeIdp;
let dns: Awaited<ReturnType<typeof startDns>>;
let owner: string;
let orgId: string;
const idp = () => `${t.base}/organizations/${orgId}/idp/open-id`;
/** Hosts of every socket connect attempted in this process. */
const attempts: string[] = [];
const originalConnect = net.Socket.prototype.connect;
const nonLoopback = () => attempts.filter((h) => !/^(127\.0\.0\.1|localhost|::1|\/)/.test(h));

beforeAll(async () => {
  net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
    // http's agents call connect with net's normalized [options, callback] array.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const host = String(
      typeof first === 'object' && first !== null
        ? (first.host ?? first.path ?? 'localhost')
        : typeof args[1] === 'string'
          ? args[1]
          : 'localhost',
    );
    attempts.push(host);
    // Never let a packet leave for a non-loopback address from a test.
    if (!/^(127\.0\.0\.1|localhost|::1|\/)/.test(host)) {
      process.nextTick(() => this.destroy(new Error(`test: connect to ${host} blocked`)));
      return this;
    }
    return (originalConnect as any).apply(this, args);
  } as any;
  dns = await startDns();
  t = await startAssent({ ASSENT_FEDERATION_ALLOW_HTTP_HOSTS: '127.0.0.1', ASSENT_DNS_SERVERS: dns.server });
  orgId = t.ids.organisations.acme!.id;
  owner = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
  fake = await startFakeIdp('assent-client');
  await configureFakeIdp(idp(), owner, fake, APP);
});
afterAll(async () => {
  net.Socket.prototype.connect = originalConnect;
  await fake?.close();
  await dns?.close();
  await t?.stop();
});

describe('SSRF', () => {
  it('a jwksUrl at 169.254.169.254 or 10.0.0.1 is refused when saved (400), without any connection', async () => {
    for (const jwksUrl of [
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/jwks',
      'https://[::ffff:10.0.0.1]/jwks',
    ]) {
      const res = await call(idp(), { method: 'PUT', token: owner, body: { jwksUrl } });
      expect(res.status, jwksUrl).toBe(400);
      expect(res.body.Message).toMatch(
        /jwksUrl: must not name a loopback, private, link-local or other special-use address/,
      );
    }
    expect(nonLoopback()).toEqual([]);
  });

  it('the guard itself refuses 169.254.169.254 and 10.0.0.1 before connecting (IdP fetch and webhook POST alike)', async () => {
    const policy = { allowHttpHosts: ['127.0.0.1'] };
    for (const url of ['https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/jwks']) {
      await expect(guardedFetch(url, { method: 'GET' }, policy)).rejects.toMatchObject({ kind: 'blocked' });
      await expect(postOutbound(url, '{}', {}, policy)).rejects.toBeInstanceOf(OutboundError);
    }
    expect(nonLoopback()).toEqual([]);
  });

  it('a host name resolved to 10.0.0.1 is refused before any connection: the sign-in fails with a clear error, never a 500', async () => {
    // Saving contacts nothing, not even DNS.
    expect(
      (await call(idp(), { method: 'PUT', token: owner, body: { jwksUrl: `https://${INTERNAL}/jwks` } })).status,
    ).toBe(200);
    expect(dns.queries).toEqual([]);
    const start = await fetch(`${idp()}/authorize?redirect_uri=${encodeURIComponent(APP)}&state=s`, {
      redirect: 'manual',
    });
    const toIdp = new URL(start.headers.get('location')!);
    fake.nonce = toIdp.searchParams.get('nonce')!;
    const back = await fetch(`${idp()}/callback?code=c&state=${toIdp.searchParams.get('state')}`, {
      redirect: 'manual',
    });
    expect(back.status).toBe(303);
    const params = new URL(back.headers.get('location')!).searchParams;
    expect(params.get('error')).toBe('temporarily_unavailable');
    // The browser holds no credential: it is told no network detail (ASVS 5.0 V16.5.1); the log has it.
    expect(params.get('error_description')).toBe('The identity provider could not be reached; try again later');
    expect(back.headers.get('location')).not.toMatch(/non-public|10\.0\.0\.1|internal/i);
    // The exchange of a provider code is a 502 too; needing no credential, it names no network detail.
    fake.nonce = undefined;
    const res = await call(`${idp()}/exchange?redirect_uri=${encodeURIComponent(APP)}&code=provider-code`, {
      method: 'POST',
    });
    expect(res.status).toBe(502);
    expect(res.body.Message).toBe('The identity provider could not be reached; try again later');
    // The name was asked of the test resolver, and no socket was opened to it or to 10.0.0.1.
    expect(dns.queries).toContain(INTERNAL);
    expect(attempts).toContain('127.0.0.1'); // the spy sees connections: the token endpoint's
    expect(attempts).not.toContain(INTERNAL);
    expect(nonLoopback()).toEqual([]);
  });
});
