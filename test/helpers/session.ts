/** Session helpers for the identity tests: refresh, logout and "does this credential work". */
import { call, login, type TestAssent } from './assent.js';

/** The demo users of test/helpers/assent.ts demoImport(). */
export const ALICE = { username: 'alice@acme.example', password: 'alice-passphrase' } as const;
export const BOB = { username: 'bob@acme.example', password: 'bob-passphrase' } as const;

/** The client a login without `clientid` binds to (the first registered one). */
export const DEFAULT_CLIENT = 'igrant-ios-app';
/** Another registered client of the demo import. */
export const OTHER_CLIENT = 'privacy-dashboard';

/** The Token body of docs/api.md "Resources". */
export interface TokenBody {
  access_token: string;
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  token_type: string;
}

/** Logs a demo user in and returns the login body (User and Token). */
export async function signIn(t: TestAssent, user: { username: string; password: string }) {
  const body = await login(t, user.username, user.password);
  return body as { User: { ID: string; APIKey: string }; Token: TokenBody };
}

/** POST {base}/users/token (or `path`) with the body as given. */
export function refresh(t: TestAssent, body: unknown, path = '/users/token') {
  return call(`${t.base}${path}`, { method: 'POST', body });
}

/** POST {base}/users/logout with a credential (`scheme token`) and a body. */
export function logout(t: TestAssent, body: unknown, token?: string, scheme = 'Bearer') {
  return call(`${t.base}/users/logout`, { method: 'POST', body, token, scheme });
}

/** GET {base}/user with `scheme token`; returns the status and body. */
export function me(t: TestAssent, token: string | undefined, scheme = 'Bearer') {
  return call(`${t.base}/user`, { token, scheme });
}

/** The status of GET {base}/user with a bearer token. */
export async function meStatus(t: TestAssent, token: string, scheme = 'Bearer'): Promise<number> {
  return (await me(t, token, scheme)).status;
}
