/**
 * A cookie-keeping browser stand-in for the web front ends' HTTP tests (test/web-*.test.ts): signs
 * in through the form, keeps the session cookie, reads the CSRF token from a page, and posts forms
 * as a same-origin page would (`Origin` set to the server's).
 */
import type { TestAssent } from './assent.js';

/** A signed-in (or not) browser. */
export interface WebClient {
  /** `name=value` of the session cookie, or '' when none. */
  cookie: string;
  /** GET a path; redirects are not followed. */
  get(path: string): Promise<Response>;
  /** POST a form to a path (a list: the field repeated, as ticked checkboxes send it); `origin` defaults to the server's. */
  post(
    path: string,
    form: Record<string, string | readonly string[]>,
    opts?: { origin?: string | null; headers?: Record<string, string> },
  ): Promise<Response>;
  /**
   * POST a `multipart/form-data` form (its parts in the order given, as a browser sends a form's
   * fields in document order); `origin` defaults to the server's.
   */
  postMultipart(
    path: string,
    parts: Array<[name: string, value: string | Blob, filename?: string]>,
    opts?: { origin?: string | null; headers?: Record<string, string> },
  ): Promise<Response>;
  /** The CSRF token of a signed-in page (read from `/dashboard/data`). */
  csrf(): Promise<string>;
}

/** A form's `application/x-www-form-urlencoded` body; a list's values each as the same field. */
function formBody(form: Record<string, string | readonly string[]>): string {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one);
  return body.toString();
}

/** A new browser without a session. */
export function webClient(t: TestAssent): WebClient {
  const client: WebClient = {
    cookie: '',
    async get(path) {
      return fetch(`${t.url}${path}`, { redirect: 'manual', headers: client.cookie ? { cookie: client.cookie } : {} });
    },
    async post(path, form, opts = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...opts.headers };
      if (opts.origin !== null) headers.origin = opts.origin ?? t.url;
      if (client.cookie) headers.cookie = client.cookie;
      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers,
        body: formBody(form),
      });
      const set = res.headers.get('set-cookie');
      if (set) {
        const pair = set.split(';')[0]!;
        client.cookie = pair.endsWith('=') ? '' : pair;
      }
      return res;
    },
    async postMultipart(path, parts, opts = {}) {
      const form = new FormData();
      for (const [name, value, filename] of parts)
        if (typeof value === 'string') form.append(name, value);
        else form.append(name, value, filename ?? 'upload');
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.origin !== null) headers.origin = opts.origin ?? t.url;
      if (client.cookie) headers.cookie = client.cookie;
      return fetch(`${t.url}${path}`, { method: 'POST', redirect: 'manual', headers, body: form });
    },
    async csrf() {
      const html = await (await client.get('/dashboard/data')).text();
      const m = /name="_csrf" value="([^"]+)"/.exec(html);
      if (!m) throw new Error('no CSRF token on the page');
      return m[1]!;
    },
  };
  return client;
}

/** Signs a new browser in through the dashboard's form. */
export async function webSignIn(t: TestAssent, user: { username: string; password: string }): Promise<WebClient> {
  const client = webClient(t);
  const res = await client.post('/dashboard/sign-in', { username: user.username, password: user.password });
  if (res.status !== 303 || !client.cookie) throw new Error(`web sign-in failed: ${res.status}`);
  return client;
}

const unescapeHtml = (s: string) =>
  s
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');

/**
 * The fields a browser would submit from the page's form posting to `action`, as the page shows
 * them: text and hidden inputs, ticked checkboxes and radio buttons, textareas and selected options (no buttons).
 * @throws Error when the page has no such form.
 */
export function formValues(html: string, action: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="${action}">([\\s\\S]*?)</form>`).exec(html);
  if (!form) throw new Error(`no form posting to ${action}`);
  const body = form[1]!;
  const out: Record<string, string> = {};
  for (const [tag] of body.matchAll(/<input [^>]*>/g)) {
    const attr = (name: string) => new RegExp(` ${name}="([^"]*)"`).exec(tag)?.[1];
    const name = attr('name');
    const choice = attr('type') === 'checkbox' || attr('type') === 'radio';
    if (!name || (choice && !/ checked/.test(tag))) continue;
    out[name] = unescapeHtml(attr('value') ?? '');
  }
  for (const m of body.matchAll(/<textarea [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1]!] = unescapeHtml(m[2]!);
  for (const m of body.matchAll(/<select [^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
    out[m[1]!] = unescapeHtml(/<option value="([^"]*)" selected/.exec(m[2]!)?.[1] ?? '');
  return out;
}
