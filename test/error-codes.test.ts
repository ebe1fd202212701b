/**
 * The stable error codes (docs/api.md "Error codes"): through the public HTTP API, a 400, 401, 404 and 409
 * each answer the documented status and the `{"Code", "Message"}` body of docs/api.md "Errors" (no code in
 * it), and the request's log line names the documented code; and the list in docs/api.md is exactly the
 * codes of src/platform/core/errors.ts, each with the status the edge answers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssentError, ERROR_CODES } from '../src/platform/core/errors.js';
import { httpStatusOf } from '../src/platform/http/errors.js';
import { call } from './helpers/assent.js';
import {
  DEMO_ALICE,
  DEMO_FILE,
  freshStore,
  jsonLogLines,
  runCli,
  type ServeProcess,
  startServe,
  type TestStore,
} from './helpers/cli.js';

const root = path.resolve(import.meta.dirname, '..');
const UNKNOWN_ORG = '01a20000-0000-7000-8000-000000000000';

/** The rows of the table of docs/api.md "Error codes": code and HTTP status. */
function documentedCodes(): Map<string, number> {
  const text = readFileSync(path.join(root, 'docs/api.md'), 'utf8');
  const section = text.slice(text.indexOf('#### Error codes'), text.indexOf('### Limits'));
  const rows = [...section.matchAll(/^\| `(ASSENT_ERR_[A-Z_]+)` \| (\d{3}) \|/gm)];
  return new Map(rows.map((m) => [m[1]!, Number(m[2])]));
}

describe('docs/api.md "Error codes"', () => {
  it('lists every code of src/platform/core/errors.ts, and no other, with the status the edge answers', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES)
      expect(documented.get(code), code).toBe(httpStatusOf({ code } as unknown as AssentError));
  });
});

describe('refused requests', () => {
  let store: TestStore;
  let server: ServeProcess;
  let owner: string;
  let orgId: string;

  /** Sends a request with a known X-Request-Id. */
  const send = (id: string, url: string, init: Parameters<typeof call>[1] = {}) =>
    call(`${server.base}${url}`, { ...init, headers: { ...init.headers, 'x-request-id': id } });

  /** The codes logged for the request `id` (the request's error log line). */
  const loggedCodes = async (id: string): Promise<unknown[]> => {
    for (let i = 0; i < 50; i++) {
      const codes = jsonLogLines(server)
        .filter((l) => l.requestId === id && l.code !== undefined)
        .map((l) => l.code);
      if (codes.length > 0) return codes;
      await new Promise((r) => setTimeout(r, 50));
    }
    return [];
  };

  beforeAll(async () => {
    store = await freshStore();
    const imported = await runCli(['import', DEMO_FILE], store.env);
    if (imported.code !== 0) throw new Error(imported.stderr);
    server = await startServe({ ...store.env, LOG_LEVEL: 'info' });
    const login = await call(`${server.base}/v1.1/users/login`, {
      body: { username: 'owner@acme.example', password: 'demo-owner-passphrase' },
    });
    expect(login.status).toBe(200);
    owner = login.body.Token.access_token;
    orgId = login.body.User.Roles[0].OrgID;
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await store?.cleanup();
  });

  it('a 400 (a page limit out of range) logs ASSENT_ERR_INVALID_REQUEST', async () => {
    const res = await send('codes-400', `/organizations/${orgId}/users?limit=0`, { token: owner });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ Code: 400, Message: 'limit must be a whole number from 1 to 500' });
    expect(await loggedCodes('codes-400')).toEqual(['ASSENT_ERR_INVALID_REQUEST']);
  });

  it('a 401 (no credentials) answers WWW-Authenticate and logs ASSENT_ERR_UNAUTHENTICATED', async () => {
    const res = await send('codes-401', '/user');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toEqual({ Code: 401, Message: 'Missing or malformed Authorization header' });
    expect(await loggedCodes('codes-401')).toEqual(['ASSENT_ERR_UNAUTHENTICATED']);
  });

  it('a 401 on a token route carries the OAuth error too, and logs ASSENT_ERR_UNAUTHENTICATED', async () => {
    const res = await send('codes-401-oauth', '/v1.1/users/login', {
      body: { username: DEMO_ALICE.username, password: 'not-alice-passphrase' },
    });
    expect(res.status).toBe(401);
    expect(Object.keys(res.body).sort()).toEqual(['Code', 'Message', 'error', 'error_description']);
    expect(res.body).toMatchObject({ Code: 401, error: 'invalid_grant' });
    expect(res.body.error_description).toBe(res.body.Message);
    expect(await loggedCodes('codes-401-oauth')).toEqual(['ASSENT_ERR_UNAUTHENTICATED']);
  });

  it('a 404 (an unknown organisation) logs ASSENT_ERR_NOT_FOUND', async () => {
    const res = await send('codes-404', `/organizations/${UNKNOWN_ORG}/users`, { token: owner });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ Code: 404, Message: 'Organisation not found' });
    expect(await loggedCodes('codes-404')).toEqual(['ASSENT_ERR_NOT_FOUND']);
  });

  it('a 409 (a username already subscribed) logs ASSENT_ERR_CONFLICT', async () => {
    const res = await send('codes-409', `/organizations/${orgId}/users`, {
      token: owner,
      body: { username: DEMO_ALICE.username },
    });
    expect(res.status).toBe(409);
    expect(Object.keys(res.body)).toEqual(['Code', 'Message']);
    expect(res.body.Code).toBe(409);
    expect(typeof res.body.Message).toBe('string');
    expect(await loggedCodes('codes-409')).toEqual(['ASSENT_ERR_CONFLICT']);
  });

  it('a path no route serves logs ASSENT_ERR_NOT_FOUND with the same body', async () => {
    const res = await send('codes-404-route', '/no/such/path');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ Code: 404, Message: 'Not found' });
    expect(await loggedCodes('codes-404-route')).toEqual(['ASSENT_ERR_NOT_FOUND']);
  });
});
