/**
 * Test doubles for federation, all on 127.0.0.1: panva's oidc-provider as a real external IdP,
 * a browser with a cookie jar that drives its login forms, a fake IdP whose token endpoint signs
 * whatever ID token a test asks for, a server that never answers, and a DNS responder that maps
 * every name to 10.0.0.1.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider from 'oidc-provider';
import { call, type TestAssent } from './assent.js';

const html = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#x2F;/g, '/')
    .replace(/&quot;/g, '"');

/** A browser: a cookie jar (one host, 127.0.0.1: cookies ignore ports, RFC 6265 §8.5) and manual redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Every URL requested, in order. */
  readonly visited: string[] = [];

  /** @param fetch - how it sends requests (default the global fetch; an HTTPS test passes one trusting its CA). */
  constructor(readonly fetch: typeof globalThis.fetch = globalThis.fetch) {}

  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    this.visited.push(url);
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await this.fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const expired = attrs.some(
        (a) => /^\s*max-age=0/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) < Date.now()),
      );
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(eq + 1).trim());
    }
    const location = res.headers.get('location');
    return { status: res.status, location: location ? new URL(location, url).href : null, body: await res.text() };
  }

  /**
   * Follows redirects and submits the provider's forms (login with `login`/`password`, consent,
   * logout confirmation) until a redirect leaves for `stopAt`, or a page has no form.
   * @returns the final redirect target (not fetched), or null, and whether a login form was shown.
   */
  async drive(start: string, stopAt: string, login: { login: string; password: string }) {
    let next: { url: string; form?: Record<string, string> } | null = { url: start };
    let sawLogin = false;
    for (let i = 0; i < 20 && next; i++) {
      const res = await this.request(next.url, next.form ? { form: next.form } : {});
      if (res.location) {
        if (res.location.startsWith(stopAt)) return { location: res.location, sawLogin, last: res };
        next = { url: res.location };
        continue;
      }
      const form = /<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/.exec(res.body);
      if (!form) return { location: null, sawLogin, last: res };
      const fields: Record<string, string> = {};
      for (const m of form[2]!.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
        fields[m[1]!] = html(m[2]!);
      if (/name="login"/.test(form[2]!)) {
        sawLogin = true;
        Object.assign(fields, login);
      }
      if (/op\.logoutForm/.test(res.body)) fields.logout = 'yes';
      next = { url: new URL(html(form[1]!), next.url).href, form: fields };
    }
    return { location: null, sawLogin, last: null };
  }
}

/** A running oidc-provider. */
export interface TestProvider {
  issuer: string;
  provider: any;
  /** Requests that reached the end-session endpoint, with their query. */
  endSessionRequests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Starts oidc-provider 8 on 127.0.0.1 with one confidential client and the development login
 * forms (any login and password sign in; the login becomes `sub`).
 * @param client - `client_id`, `client_secret` and the allowed redirect URIs.
 */
export async function startProvider(client: {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
}): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      { ...client, post_logout_redirect_uris: [], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    cookies: { keys: ['test-cookie-key-of-the-provider'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Assent must send PKCE: the provider refuses an authorization request without it.
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    findAccount: (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: () => ({
        sub: id,
        email: id === 'alice' ? 'alice@acme.example' : `${id}@idp.example`,
        email_verified: true,
        name: `User ${id}`,
      }),
    }),
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('provider error', err));
  const endSessionRequests: URLSearchParams[] = [];
  provider.use(async (ctx: any, next: () => Promise<void>) => {
    if (ctx.path === '/session/end') endSessionRequests.push(new URLSearchParams(ctx.querystring));
    await next();
  });
  server.on('request', provider.callback());
  return { issuer, provider, endSessionRequests, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * Starts oidc-provider (`startProvider`) for an organisation, registering Assent's callback
 * `redirectUri` there, and configures it as the organisation's external IdP through the API
 * (`POST …/idp/open-id` as `ownerToken`, the userinfo and logout endpoints included).
 * @returns the provider and the POST's answer (201 expected).
 */
export async function configureOrgProvider(t: TestAssent, orgId: string, ownerToken: string, redirectUri: string) {
  const op = await startProvider({
    client_id: 'assent',
    client_secret: 'provider-client-secret',
    redirect_uris: [redirectUri],
  });
  const created = await call(`${t.base}/organizations/${orgId}/idp/open-id`, {
    token: ownerToken,
    body: {
      issuer: op.issuer,
      authorizationUrl: `${op.issuer}/auth`,
      tokenUrl: `${op.issuer}/token`,
      jwksUrl: `${op.issuer}/jwks`,
      userInfoUrl: `${op.issuer}/me`,
      logoutUrl: `${op.issuer}/session/end`,
      clientId: 'assent',
      clientSecret: 'provider-client-secret',
      disableUserInfo: false,
      defaultScope: 'openid email profile',
    },
  });
  return { op, created };
}

/** A fake IdP whose token endpoint answers the ID token a test mints. */
export interface FakeIdp {
  url: string;
  /** Mints the ID token for one token request; `nonce` is the one of the pending sign-in. */
  mint: (ctx: {
    nonce: string | undefined;
    sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Promise<string>;
  }) => Promise<string>;
  /** The nonce to put in the next ID token (read by tests from the authorize redirect). */
  nonce: string | undefined;
  userinfoCalls: number;
  tokenCalls: number;
  close(): Promise<void>;
}

/**
 * Makes `fake` the organisation's provider, as its Owner (`POST {base}/organizations/{ID}/idp/open-id`,
 * client `assent-client`), and registers `appUri` as its one app redirect URI.
 * @param idpUrl - `{base}/organizations/{organizationID}/idp/open-id`.
 * @param owner - an access token of the organisation's Owner.
 * @param scope - the configuration's `defaultScope`.
 */
export async function configureFakeIdp(
  idpUrl: string,
  owner: string,
  fake: FakeIdp,
  appUri: string,
  scope = 'openid',
): Promise<void> {
  const created = await call(idpUrl, {
    token: owner,
    body: {
      issuer: fake.url,
      authorizationUrl: `${fake.url}/authorize`,
      tokenUrl: `${fake.url}/token`,
      jwksUrl: `${fake.url}/jwks`,
      userInfoUrl: `${fake.url}/userinfo`,
      logoutUrl: '',
      clientId: 'assent-client',
      clientSecret: 'fake-secret',
      disableUserInfo: false,
      defaultScope: scope,
    },
  });
  if (created.status !== 201)
    throw new Error(`configuring the fake IdP failed: ${created.status} ${JSON.stringify(created.body)}`);
  const registered = await call(`${idpUrl}/app-redirect-uris`, {
    method: 'PUT',
    token: owner,
    body: { RedirectURIs: [appUri] },
  });
  if (registered.status !== 200) throw new Error(`registering ${appUri} failed: ${registered.status}`);
}

/**
 * Starts the fake IdP: `/token`, `/jwks`, `/userinfo`, with one RS256 key (another key signs "bad signature" tokens).
 */
export async function startFakeIdp(clientId: string): Promise<FakeIdp> {
  const good = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const fake: FakeIdp = {
    url,
    nonce: undefined,
    userinfoCalls: 0,
    tokenCalls: 0,
    mint: async ({ nonce, sign }) => sign({ nonce }),
    close: () => new Promise((r) => server.close(() => r())),
  };
  const sign = async (claims: Record<string, unknown>, header: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const body = {
      iss: url,
      aud: clientId,
      sub: 'fake-subject',
      iat: now,
      exp: now + 300,
      name: 'From ID Token',
      ...claims,
    };
    for (const [k, v] of Object.entries(body)) if (v === undefined) delete (body as Record<string, unknown>)[k];
    return new SignJWT(body).setProtectedHeader({ alg: 'RS256', kid: 'k1', ...header }).sign(good.privateKey);
  };
  server.on('request', async (req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    for await (const _ of req);
    if (req.url === '/jwks') return send(200, { keys: [jwk] });
    if (req.url === '/userinfo') {
      fake.userinfoCalls++;
      return send(200, { sub: 'fake-subject', name: 'From Userinfo' });
    }
    if (req.url === '/token') {
      fake.tokenCalls++;
      return send(200, {
        access_token: 'fake-access-token',
        token_type: 'Bearer',
        expires_in: 60,
        id_token: await fake.mint({ nonce: fake.nonce, sign }),
      });
    }
    send(404, {});
  });
  return fake;
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers. */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/**
 * A DNS responder on 127.0.0.1 (UDP) that answers every A query with 10.0.0.1 (or what `answer` says for the name) and
 * every other query with no records. It only answers; nothing is ever sent to the addresses it names.
 * @param answer - the IPv4 address for a queried name; 10.0.0.1 by default.
 */
export async function startDns(
  answer: (name: string) => [number, number, number, number] = () => [10, 0, 0, 1],
): Promise<{ server: string; queries: string[]; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (msg, rinfo) => {
    let at = 12;
    const labels: string[] = [];
    while (msg[at]! > 0) {
      labels.push(msg.subarray(at + 1, at + 1 + msg[at]!).toString());
      at += msg[at]! + 1;
    }
    const qtype = msg.readUInt16BE(at + 1);
    const question = msg.subarray(12, at + 5);
    queries.push(labels.join('.'));
    const header = Buffer.alloc(12);
    msg.copy(header, 0, 0, 2); // ID
    header.writeUInt16BE(0x8180, 2); // response, recursion available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(qtype === 1 ? 1 : 0, 6);
    const record =
      qtype === 1
        ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...answer(labels.join('.'))])
        : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, record]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise((r) => socket.close(() => r())),
  };
}
