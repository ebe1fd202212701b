/**
 * A login answers an API key the server accepts, also after `ASSENT_PUBLIC_URL` changed (docs/identity.md
 * "Identity", API keys): the stored key carries the old `iss`/`aud`, which the restarted server
 * refuses, so the login mints a new one instead of handing out a key that answers 401.
 * Restart-based, through `assent serve` processes on one store (PGlite or PostgreSQL).
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import {
  DEMO_ALICE,
  DEMO_FILE,
  freshStore,
  runCli,
  type ServeProcess,
  startServe,
  type TestStore,
} from './helpers/cli.js';

const OLD_URL = 'https://old-assent.example';
const NEW_URL = 'https://assent.example';

let store: TestStore;
let server: ServeProcess | undefined;

beforeAll(async () => {
  store = await freshStore();
  const imported = await runCli(['import', DEMO_FILE], store.env);
  expect(imported.code, imported.stderr).toBe(0);
});
afterAll(async () => {
  await server?.stop();
  await store?.cleanup();
});

/** Logs Alice in on `s` and returns her API key. */
async function apiKeyOf(s: ServeProcess): Promise<string> {
  const res = await call(`${s.base}/v1.1/users/login`, { body: DEMO_ALICE });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.User.APIKey as string;
}

/** The status of `GET {base}/user` with an API key, sent as `ApiKey <key>`. */
async function userStatus(s: ServeProcess, key: string): Promise<number> {
  return (await call(`${s.base}/user`, { token: key, scheme: 'ApiKey' })).status;
}

describe('API key after ASSENT_PUBLIC_URL changes', { timeout: 120_000 }, () => {
  it('the login after a restart with another public URL answers a new key that the server accepts; later logins answer that one', async () => {
    server = await startServe({ ...store.env, ASSENT_PUBLIC_URL: OLD_URL });
    const oldKey = await apiKeyOf(server);
    expect(decodeJwt(oldKey).iss).toBe(OLD_URL);
    expect(await userStatus(server, oldKey)).toBe(200);
    await server.stop();

    server = await startServe({ ...store.env, ASSENT_PUBLIC_URL: NEW_URL });
    // The server itself refuses the key minted under the old URL: it must not be handed out again.
    expect(await userStatus(server, oldKey)).toBe(401);
    const newKey = await apiKeyOf(server);
    expect(newKey).not.toBe(oldKey);
    expect(decodeJwt(newKey)).toMatchObject({ iss: NEW_URL, aud: NEW_URL });
    expect(await userStatus(server, newKey)).toBe(200);
    // GET /user hands out the same accepted key, and so does the next login: no new key per login.
    const me = await call(`${server.base}/user`, { token: newKey, scheme: 'ApiKey' });
    expect(me.body.User.APIKey).toBe(newKey);
    expect(await apiKeyOf(server)).toBe(newKey);
  });
});
