/** Small HTTP helpers of the consent benchmark: logins and JSON calls against 127.0.0.1 only. */
import { assertLocal } from './util.mjs';

/**
 * One call; throws with the answer unless its status is `expect` (when given).
 * @returns `{status, headers, text, json}`.
 */
export async function call(base, method, path, { token, body, headers = {}, expect } = {}) {
  const url = new URL(path, base);
  assertLocal(url.toString(), 'request URL');
  const res = await fetch(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (expect !== undefined && res.status !== expect)
    throw new Error(`${method} ${path}: expected ${expect}, got ${res.status} ${text.slice(0, 300)}`);
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * Logs in through POST /v1.1/users/login.
 * @returns `{userId, access, apiKey}`.
 */
export async function login(base, username, password) {
  const { json } = await call(base, 'POST', '/v1.1/users/login', { body: { username, password }, expect: 200 });
  return { userId: json.User.ID, access: json.Token.access_token, apiKey: json.User.APIKey };
}

/**
 * Logs in every user of `usernames`, `parallel` at a time (each login is an argon2id verify).
 * @returns the sessions, in the order of `usernames`.
 */
export async function loginAll(base, usernames, password, parallel = 4) {
  const sessions = new Array(usernames.length);
  let next = 0;
  const worker = async () => {
    while (next < usernames.length) {
      const i = next++;
      sessions[i] = await login(base, usernames[i], password);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return sessions;
}
