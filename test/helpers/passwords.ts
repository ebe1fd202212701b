/** Helpers of the password tests: fresh users of the demo organisation, and the password endpoints. */
import { call, login, type TestAssent } from './assent.js';

/** A user made for one test. */
export interface TestUser {
  id: string;
  username: string;
  password: string;
  email: string;
}

/** The Owner's access token of the demo organisation "acme" (cached per server). */
const ownerTokens = new WeakMap<TestAssent, string>();

async function ownerToken(t: TestAssent): Promise<string> {
  let token = ownerTokens.get(t);
  if (!token) {
    token = (await login(t, 'owner@acme.example', 'owner-passphrase')).Token.access_token;
    ownerTokens.set(t, token);
  }
  return token;
}

/**
 * Creates an individual of "acme" through `POST {base}/organizations/{id}/users`.
 * @param name - the local part; the username is `<name>@acme.example`.
 * @param opts.email - false for a user without an e-mail address.
 */
export async function newUser(
  t: TestAssent,
  name: string,
  opts: { email?: boolean; password?: string } = {},
): Promise<TestUser> {
  const username = `${name}@acme.example`;
  const email = opts.email === false ? '' : `${name}@mail.example`;
  const password = opts.password ?? `${name}-first-passphrase`;
  const res = await call(`${t.base}/organizations/${t.ids.organisations.acme!.id}/users`, {
    token: await ownerToken(t),
    body: { username, name, ...(email ? { email } : {}), password },
  });
  if (res.status !== 201) throw new Error(`creating ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.User.ID, username, password, email };
}

/**
 * `POST {base}/organizations/{acme}/users` with a password, as the Owner: the status and body.
 * @param username - the new user's username.
 */
export async function createWithPassword(t: TestAssent, username: string, password: string) {
  return call(`${t.base}/organizations/${t.ids.organisations.acme!.id}/users`, {
    token: await ownerToken(t),
    body: { username, password },
  });
}

/** Logs in; resolves the status only. */
export async function loginStatus(t: TestAssent, username: string, password: string): Promise<number> {
  return (await call(`${t.base}/v1.1/users/login`, { body: { username, password } })).status;
}

/** `POST` (or `PUT`) `{base}/user/password/reset` with a bearer credential. */
export function resetPassword(
  t: TestAssent,
  token: string | undefined,
  body: unknown,
  opts: { method?: string; scheme?: string } = {},
) {
  return call(`${t.base}/user/password/reset`, { method: opts.method ?? 'POST', body, token, scheme: opts.scheme });
}

/** `PUT {base}/user/password/forgot`. */
export function forgot(t: TestAssent, username: string, headers: Record<string, string> = {}) {
  return call(`${t.base}/user/password/forgot`, { method: 'PUT', body: { username }, headers });
}

/** `POST {base}/user/password/forgot/complete`. */
export function complete(t: TestAssent, token: string, password: string) {
  return call(`${t.base}/user/password/forgot/complete`, { method: 'POST', body: { token, password } });
}

/** The stored password hash of a user. */
export async function storedHash(t: TestAssent, userId: string): Promise<string | null> {
  const { rows } = await t.store.raw('SELECT password_hash FROM users WHERE id = $1', [userId]);
  return (rows[0] as { password_hash: string | null } | undefined)?.password_hash ?? null;
}
