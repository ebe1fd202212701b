/**
 * HTTPS in the tests as production runs Assent (docs/wallet.md "Development and tests"): a
 * TLS-terminating reverse proxy in front of a plain-http `assent serve`, and a `fetch` that trusts
 * only a test CA and speaks nothing but https, for the relying party, the user agent and the test
 * wallet.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCert } from './wallet/pki.js';

/**
 * A `fetch` over node:https that trusts only `caPem` (not the system's roots) and never follows
 * redirects (as `redirect: 'manual'`).
 * @throws TypeError for any URL that is not https: nothing of an HTTPS test may go over plain http.
 */
export function trustingFetch(caPem: string): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.protocol !== 'https:') throw new TypeError(`not https: ${url.href}`);
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const headers = Object.fromEntries(req.headers);
    return new Promise<Response>((resolve, reject) => {
      const out = https.request(
        url,
        { method: req.method, headers, ca: caPem, servername: url.hostname, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const answer = new Headers();
            for (let i = 0; i < res.rawHeaders.length; i += 2)
              answer.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
            const status = res.statusCode!;
            const empty = [204, 205, 304].includes(status) || req.method === 'HEAD';
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers: answer }));
          });
        },
      );
      out.on('error', reject);
      out.end(body);
    });
  };
}

/** A running TLS-terminating proxy. */
export interface TlsProxy {
  /** `https://localhost:{port}`. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Starts an HTTPS server on 127.0.0.1:`port` with `cert` (its PEM and key) that forwards every
 * request to `target` (an http origin), adding `X-Forwarded-Proto: https`, `X-Forwarded-For` and
 * `X-Forwarded-Host`, as a production load balancer does (Assent then needs ASSENT_TRUST_PROXY).
 */
export async function startTlsProxy(port: number, cert: TestCert, target: string): Promise<TlsProxy> {
  const to = new URL(target);
  const server = https.createServer({ cert: cert.pem, key: cert.privatePem }, (req, res) => {
    const headers = {
      ...req.headers,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': req.socket.remoteAddress ?? '',
      'x-forwarded-host': req.headers.host ?? '',
    };
    const upstream = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `https://localhost:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
