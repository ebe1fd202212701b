/**
 * Errors made before a route runs (by Node's HTTP parser, the router, the body parsers and the
 * request timeout) answer like every other error: `{"Code", "Message"}` JSON with
 * `Content-Type: application/json` (docs/api.md "Responses"), and slow, endless or malformed requests
 * end with a 4xx and a closed socket instead of holding a connection for ever (OWASP API4:2023 "Unrestricted Resource
 * Consumption").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, startAssent, type TestAssent } from './helpers/assent.js';
import { type RawAnswer, rawRequest } from './helpers/raw.js';

let t: TestAssent;
let alice: string;
let aliceId: string;

beforeAll(async () => {
  // A short request timeout, so that the slow-body tests take seconds.
  t = await startAssent({ ASSENT_REQUEST_TIMEOUT_SECONDS: '2' });
  alice = (await login(t, 'alice@acme.example', 'alice-passphrase')).Token.access_token;
  aliceId = t.ids.organisations.acme!.users['alice@acme.example']!;
});
afterAll(() => t?.stop());

/** Asserts the error shape of docs/api.md "Responses" on a raw answer. */
function expectErrorShape(res: RawAnswer, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(body.Code).toBe(status);
  expect(typeof body.Message).toBe('string');
  expect(body.Message.length).toBeGreaterThan(0);
}

const host = () => `Host: ${new URL(t.url).host}\r\n`;

describe('errors made before a route runs have the {Code, Message} shape', () => {
  it('bad percent-encoding in the path is a 400 that does not echo the path', async () => {
    const res = await rawRequest(t.url, [
      `GET /v1/users/%E0%A4%A<script> HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`,
    ]);
    expectErrorShape(res, 400);
    expect(res.body).not.toContain('script');
  });

  it('a URL longer than the parser accepts is a 414', async () => {
    const res = await rawRequest(t.url, [`GET /v1/users/${'a'.repeat(20_000)} HTTP/1.1\r\n${host()}\r\n`]);
    expectErrorShape(res, 414);
    expect(res.closed).toBe(true);
  });

  it('a path parameter longer than the router accepts is a 414', async () => {
    const res = await rawRequest(t.url, [
      `GET /v1/users/${'a'.repeat(200)}/image/x HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`,
    ]);
    expectErrorShape(res, 414);
  });

  it('headers larger than the parser accepts are a 431', async () => {
    const res = await rawRequest(t.url, [`GET /healthz HTTP/1.1\r\n${host()}X-Big: ${'b'.repeat(20_000)}\r\n\r\n`]);
    expectErrorShape(res, 431);
    expect(res.closed).toBe(true);
  });

  it('a request the HTTP parser cannot read is a 400', async () => {
    const res = await rawRequest(t.url, ['NOT HTTP AT ALL\r\n\r\n']);
    expectErrorShape(res, 400);
    expect(res.closed).toBe(true);
  });

  it('a body over the size limit is a 413', async () => {
    const body = JSON.stringify({ username: 'x'.repeat(1_100_000), password: 'p' });
    const res = await rawRequest(t.url, [
      `POST /v1/v1.1/users/login HTTP/1.1\r\n${host()}Content-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expectErrorShape(res, 413);
  });

  it('a body of an unsupported media type is a 415', async () => {
    const res = await rawRequest(t.url, [
      `POST /v1/v1.1/users/login HTTP/1.1\r\n${host()}Content-Type: application/xml\r\n` +
        'Content-Length: 5\r\nConnection: close\r\n\r\nhello',
    ]);
    expectErrorShape(res, 415);
  });
});

describe('slow and endless requests end', () => {
  it('a body sent one byte at a time past ASSENT_REQUEST_TIMEOUT_SECONDS gets a 408 and a closed socket', async () => {
    const head = `POST /v1/v1.1/users/login HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const res = await rawRequest(t.url, [head, ...'{"username":"alice"'.split('')], { gapMs: 1000, waitMs: 15_000 });
    expectErrorShape(res, 408);
    expect(res.closed).toBe(true);
    expect(res.ms).toBeLessThan(8000);
  });

  it('headers sent one line at a time past the timeout get a 408 and a closed socket', async () => {
    const lines = [
      `POST /v1/v1.1/users/login HTTP/1.1\r\n`,
      host(),
      ...Array.from({ length: 12 }, (_, i) => `X-Slow-${i}: 1\r\n`),
    ];
    const res = await rawRequest(t.url, lines, { gapMs: 1000, waitMs: 15_000 });
    expectErrorShape(res, 408);
    expect(res.closed).toBe(true);
    expect(res.ms).toBeLessThan(8000);
  });
});

describe('multipart uploads that never form a file', () => {
  const boundary = 'XyZzYboundary';
  const uploadHead = (length: number) =>
    `POST /v1/users/${aliceId}/image HTTP/1.1\r\n${host()}Authorization: Bearer ${alice}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\n\r\n`;

  it('a part without Content-Disposition and 16 KB or more of body is a 400 at once', async () => {
    const body = `--${boundary}\r\nContent-Type: image/png\r\n\r\n${'z'.repeat(16 * 1024)}\r\n--${boundary}--\r\n`;
    const res = await rawRequest(t.url, [uploadHead(body.length), body], { gapMs: 50, waitMs: 10_000 });
    expectErrorShape(res, 400);
    expect(res.ms).toBeLessThan(1500);
  });

  it('a preamble that never reaches the first boundary is a 413 at once', async () => {
    const declared = 50 * 1024 * 1024;
    const res = await rawRequest(t.url, [uploadHead(declared), 'p'.repeat(256 * 1024)], { waitMs: 10_000 });
    expectErrorShape(res, 413);
    expect(res.ms).toBeLessThan(1500);
  });
});
