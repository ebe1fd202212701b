/**
 * `assent keys rotate` against a real `assent serve` child process. On PGlite the CLI reaches the
 * serving process through its admin socket; on PostgreSQL the CLI writes the key ring directly.
 * Either way the rotation is announced by NOTIFY and the server signs with the new key at once
 * (well before its 30 s periodic reload).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { runCli, type ServedAssent, serveFresh } from './helpers/cli.js';
import { decode, fetchJwks } from './helpers/jwt.js';

const DEMO_ALICE = { username: 'alice@acme.example', password: 'demo-alice-passphrase' };
/** How long the server may take to see a rotation (NOTIFY delivery), far below the 30 s periodic reload. */
const PICKUP_MS = 3_000;

let s: ServedAssent;
let before: { access_token: string; refresh_token: string };
let oldKid: string;
let newKid: string;

async function signIn() {
  const res = await call(`${s.base}/v1.1/users/login`, { body: DEMO_ALICE });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.Token as { access_token: string; refresh_token: string };
}

/** Re-evaluates `probe` until it returns true or `PICKUP_MS` has passed; returns its last value. */
async function eventually(probe: () => Promise<boolean>, intervalMs = 100): Promise<boolean> {
  const deadline = Date.now() + PICKUP_MS;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

beforeAll(async () => {
  s = await serveFresh('examples/demo.json');
  before = await signIn();
}, 90_000);
afterAll(() => s?.cleanup());

describe('assent keys rotate while the server runs', () => {
  it('before rotation the JWKS publishes one key and tokens carry its kid', async () => {
    const { keys } = await fetchJwks(s.url);
    expect(keys).toHaveLength(1);
    oldKid = keys[0]!.kid!;
    expect(decode(before.access_token).header).toMatchObject({ alg: 'ES256', kid: oldKid, typ: 'at+jwt' });
    expect((await call(`${s.base}/user`, { token: before.access_token })).status).toBe(200);
  });

  it('the CLI rotates the signing key: exit 0 and the new kid printed as JSON', async () => {
    const res = await runCli(['keys', 'rotate'], s.env);
    expect(res.code, res.stderr).toBe(0);
    newKid = JSON.parse(res.stdout).kid;
    expect(typeof newKid).toBe('string');
    expect(newKid).not.toBe(oldKid);
  });

  it('after rotation the JWKS publishes both the old and the new kid', async () => {
    let kids: string[] = [];
    const seen = await eventually(async () => {
      kids = (await fetchJwks(s.url)).keys.map((k) => k.kid!);
      return kids.includes(newKid);
    });
    expect(seen, `JWKS kids: ${kids.join(', ')}`).toBe(true);
    expect(kids.sort()).toEqual([oldKid, newKid].sort());
  }, 60_000);

  it('new logins sign their tokens with the new kid, and those tokens work', async () => {
    let token = await signIn();
    const rotated = await eventually(async () => {
      if (decode(token.access_token).header.kid === newKid) return true;
      token = await signIn();
      return decode(token.access_token).header.kid === newKid;
    }, 2000);
    expect(rotated, `kid ${decode(token.access_token).header.kid}`).toBe(true);
    // Refresh tokens are MACed, not signed with the ring (src/identity/tokens/tokens.ts), so they carry no kid.
    expect(decode(token.refresh_token).header).toEqual({ alg: 'HS256', typ: 'refresh+jwt' });
    expect((await call(`${s.base}/user`, { token: token.access_token })).status).toBe(200);
  }, 60_000);

  it('a token minted before rotation still works on GET /user, and its refresh token still rotates', async () => {
    expect(decode(before.access_token).header.kid).toBe(oldKid);
    expect((await call(`${s.base}/user`, { token: before.access_token })).status).toBe(200);
    // The session's own client (the default-client choice is checked separately below).
    const clientid = decode(before.refresh_token).payload.client_id;
    const res = await call(`${s.base}/users/token`, { body: { refreshtoken: before.refresh_token, clientid } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(decode(res.body.access_token).header.kid).toBe(newKid);
    expect((await call(`${s.base}/user`, { token: res.body.access_token })).status).toBe(200);
  });

  it('README walk-through on examples/demo.json: a login without clientid binds to igrant-ios-app, the first client the import declares', async () => {
    const token = await signIn();
    expect(decode(token.access_token).payload.client_id).toBe('igrant-ios-app');
    const res = await call(`${s.base}/users/token`, {
      body: { refreshtoken: token.refresh_token, clientid: 'igrant-ios-app' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('SIGTERM stops the server with exit code 0', async () => {
    const { code } = await s.stop();
    expect(code, s.output()).toBe(0);
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
  });
});
