/**
 * A status-list server on 127.0.0.1 (docs/wallet.md "Development and tests";
 * draft-ietf-oauth-status-list): serves `statuslist+jwt` tokens built with
 * `@sd-jwt/jwt-status-list` 0.19, signed ES256 with an `x5c`; tests flip bits, change the signer or
 * the `sub`, or stop the server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { importJWK, SignJWT } from 'jose';
import type { TestCert } from './pki.js';

/** A served list. */
interface ServedList {
  bits: number[];
  signer: TestCert;
  /** Overrides for the hostile cases. */
  sub?: string;
  typ?: string;
  /** The token's `ttl` (seconds): how long a verifier may reuse it. */
  ttl?: number;
}

/** The running server. */
export interface StatusServer {
  origin: string;
  /** Creates (or resets) a list of `size` valid entries at `/lists/{name}` and returns its URI. */
  list(name: string, signer: TestCert, size?: number): string;
  /** Sets entry `idx` of a list: 0 valid, 1 revoked, 2 suspended. */
  set(name: string, idx: number, value: number): void;
  /** How many times each list was fetched. */
  fetches: Map<string, number>;
  /** Changes how a list is served (signer, sub, typ, ttl). */
  tamper(name: string, change: Partial<Omit<ServedList, 'bits'>>): void;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1, on a free port. */
export async function startStatusServer(): Promise<StatusServer> {
  const lists = new Map<string, ServedList>();
  const fetches = new Map<string, number>();
  let origin = '';
  const server = http.createServer(async (req, res) => {
    const name = req.url?.startsWith('/lists/') ? req.url.slice('/lists/'.length) : '';
    const list = lists.get(name);
    if (!list) {
      res.writeHead(404).end();
      return;
    }
    fetches.set(name, (fetches.get(name) ?? 0) + 1);
    const uri = `${origin}/lists/${name}`;
    const { header, payload } = createHeaderAndPayload(
      new StatusList(list.bits, 2),
      {
        iss: 'https://issuer.test',
        sub: list.sub ?? uri,
        iat: Math.floor(Date.now() / 1000),
        ...(list.ttl ? { ttl: list.ttl } : {}),
      },
      { alg: 'ES256', typ: 'statuslist+jwt', x5c: [list.signer.b64] } as never,
    );
    // createHeaderAndPayload always sets typ; the hostile case overrides it afterwards.
    if (list.typ) (header as { typ: string }).typ = list.typ;
    const key = await importJWK(list.signer.privateJwk as never, 'ES256');
    const jwt = await new SignJWT(payload as never).setProtectedHeader(header as never).sign(key);
    res.writeHead(200, { 'content-type': 'application/statuslist+jwt' }).end(jwt);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    fetches,
    list(name, signer, size = 16) {
      lists.set(name, { bits: new Array(size).fill(0), signer });
      return `${origin}/lists/${name}`;
    },
    set(name, idx, value) {
      lists.get(name)!.bits[idx] = value;
    },
    tamper(name, change) {
      Object.assign(lists.get(name)!, change);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
