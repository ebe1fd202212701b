/** A webhook receiver on 127.0.0.1: records every POST and answers as the test tells it. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received webhook. */
export interface Received {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

/** A running receiver. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Status to answer for a request (default 200). */
  answer: (r: Received) => number;
  /** Milliseconds to wait before answering (default 0). */
  delayMs: number;
  close(): Promise<void>;
}

/** Starts a receiver at http://127.0.0.1:<port>/hook. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', received: [], answer: () => 200, delayMs: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, raw, body: JSON.parse(raw) };
      receiver.received.push(r);
      setTimeout(
        () => res.writeHead(receiver.answer(r)).end('{"secret":"remote body must never be echoed"}'),
        receiver.delayMs,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * Checks `Assent-Signature: t=<unix>,v1=<hex>` as a receiver should: HMAC-SHA256 over `<t>.<body>`.
 * @returns true when it matches `secret`.
 */
export function verifySignature(r: Received, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(r.headers['assent-signature']));
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.raw}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

/** Polls `read` every 100 ms until `done` holds or `timeoutMs` passes; answers the last value. */
export async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
