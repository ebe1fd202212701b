/**
 * Loopback stand-ins for the push services (docs/notifications.md "Mobile push"), checking what the
 * real ones check:
 * - FCM: the OAuth 2.0 JWT-bearer grant (RFC 7523 §2.1) signed RS256 with the service-account key
 *   (verified with its public half; `iss` the client e-mail, `aud` Google's token URL, the FCM
 *   scope), then `POST /v1/projects/{project}/messages:send` with the bearer it issued.
 * - APNs: HTTP/2 over TLS (a test CA), `authorization: bearer` an ES256 JWT from the `.p8` key with
 *   `kid` and `iss`, `apns-topic` the bundle ID, `apns-push-type`, `POST /3/device/{token}`.
 * Each records what it accepted and answers as the test says.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import { leaf, selfSigned } from './wallet/pki.js';

/** What a stand-in answers for one push: status, extra headers and a JSON body. */
export interface PushAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** One push a stand-in received (after its checks passed). */
export interface Pushed {
  token: string;
  /** The message (FCM `message`) or payload (APNs). */
  body: any;
  headers: Record<string, string | string[] | undefined>;
  at: number;
}

/** A running stand-in. */
export interface PushStandIn {
  received: Pushed[];
  /** Requests refused by a check (bad signature, audience, bearer, topic …), with the reason. */
  refused: string[];
  /** The answer to a push (default 200). */
  answer: (p: Pushed) => PushAnswer;
  /** Milliseconds to wait before answering (default 0). */
  delayMs: number;
  close(): Promise<void>;
}

/** A generated FCM service-account key file and the stand-in's endpoints. */
export interface FcmStandIn extends PushStandIn {
  /** The key file's JSON. */
  serviceAccount: string;
  projectId: string;
  /** Environment that points Assent at this stand-in. */
  env: Record<string, string>;
  /** Access tokens issued (count). */
  grants: number;
}

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

function standIn(): PushStandIn {
  return { received: [], refused: [], answer: () => ({ status: 200 }), delayMs: 0, close: async () => {} };
}

function readBody(req: http.IncomingMessage | http2.Http2ServerRequest): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => resolve(raw));
    req.on('error', reject);
  });
}

/** Starts an FCM stand-in on http://127.0.0.1 with a fresh service-account key. */
export async function startFcm(projectId = 'assent-test-project'): Promise<FcmStandIn> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = `assent@${projectId}.iam.gserviceaccount.com`;
  const spki = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'RS256');
  const issued = new Set<string>();
  const s: FcmStandIn = {
    ...standIn(),
    projectId,
    serviceAccount: JSON.stringify({
      type: 'service_account',
      project_id: projectId,
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      client_email: clientEmail,
      token_uri: GOOGLE_TOKEN_URL,
    }),
    env: {},
    grants: 0,
  };
  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    const refuse = (status: number, reason: string) => {
      s.refused.push(reason);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
    };
    if (req.method === 'POST' && req.url === '/token') {
      const form = new URLSearchParams(raw);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return refuse(400, 'grant_type');
      try {
        const assertion = form.get('assertion') ?? '';
        if (decodeProtectedHeader(assertion).alg !== 'RS256') return refuse(400, 'alg');
        const { payload } = await jwtVerify(assertion, spki, { issuer: clientEmail, audience: GOOGLE_TOKEN_URL });
        if (
          !String(payload.scope ?? '')
            .split(' ')
            .includes(FCM_SCOPE)
        )
          return refuse(400, 'scope');
      } catch (err) {
        return refuse(400, `assertion: ${(err as Error).message}`);
      }
      const token = `ya29.${randomBytes(24).toString('base64url')}`;
      issued.add(token);
      s.grants++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
      return;
    }
    const m = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !m) return refuse(404, `path ${req.url}`);
    if (m[1] !== projectId) return refuse(403, 'project');
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !issued.has(bearer)) return refuse(401, 'bearer');
    const message = JSON.parse(raw).message;
    if (typeof message?.token !== 'string') return refuse(400, 'message.token');
    const pushed: Pushed = { token: message.token, body: message, headers: req.headers, at: Date.now() };
    s.received.push(pushed);
    const answer = s.answer(pushed);
    setTimeout(() => {
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(
          JSON.stringify(answer.body ?? { name: `projects/${projectId}/messages/${randomBytes(8).toString('hex')}` }),
        );
    }, s.delayMs);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s.env = { ASSENT_FCM_URL: origin, ASSENT_FCM_TOKEN_URL: `${origin}/token` };
  s.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return s;
}

/** The answer FCM gives for a token that is no longer registered. */
export const FCM_UNREGISTERED: PushAnswer = {
  status: 404,
  body: {
    error: {
      code: 404,
      status: 'NOT_FOUND',
      details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
    },
  },
};

/** A generated APNs key and the stand-in's endpoint. */
export interface ApnsStandIn extends PushStandIn {
  /** The `.p8` key (PKCS#8 PEM). */
  key: string;
  keyId: string;
  teamId: string;
  bundleId: string;
  env: Record<string, string>;
}

/** Starts an APNs stand-in: HTTP/2 over TLS on 127.0.0.1 with a certificate of a test CA (written to a file). */
export async function startApns(bundleId = 'example.shop.app'): Promise<ApnsStandIn> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = await importSPKI(publicKey.export({ type: 'spki', format: 'pem' }) as string, 'ES256');
  const ca = await selfSigned('Assent test APNs CA');
  const cert = await leaf('127.0.0.1', ca, { ip: '127.0.0.1' });
  const caFile = path.join(os.tmpdir(), `assent-apns-ca-${randomBytes(6).toString('hex')}.pem`);
  writeFileSync(caFile, ca.pem);
  const s: ApnsStandIn = {
    ...standIn(),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    keyId: 'ABC123DEFG',
    teamId: 'TEAM123456',
    bundleId,
    env: {},
  };
  const server = http2.createSecureServer({ cert: cert.pem, key: cert.privatePem, allowHTTP1: false });
  server.on('stream', async (stream, headers) => {
    let raw = '';
    stream.setEncoding('utf8');
    stream.on('data', (c: string) => (raw += c));
    await new Promise((resolve) => stream.on('end', resolve));
    const refuse = (status: number, reason: string) => {
      s.refused.push(reason);
      stream.respond({ ':status': status, 'content-type': 'application/json' });
      stream.end(JSON.stringify({ reason }));
    };
    const m = /^\/3\/device\/([0-9a-fA-F]+)$/.exec(String(headers[':path']));
    if (headers[':method'] !== 'POST' || !m) return refuse(405, 'MethodNotAllowed');
    const bearer = /^bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1];
    if (!bearer) return refuse(403, 'MissingProviderToken');
    try {
      const header = decodeProtectedHeader(bearer);
      if (header.alg !== 'ES256' || header.kid !== s.keyId) return refuse(403, 'InvalidProviderToken');
      const { payload } = await jwtVerify(bearer, spki, { issuer: s.teamId, maxTokenAge: '1h' });
      if (typeof payload.iat !== 'number') return refuse(403, 'InvalidProviderToken');
    } catch {
      return refuse(403, 'InvalidProviderToken');
    }
    if (headers['apns-topic'] !== s.bundleId) return refuse(400, 'TopicDisallowed');
    if (!headers['apns-push-type']) return refuse(400, 'InvalidPushType');
    const pushed: Pushed = { token: m[1]!, body: JSON.parse(raw), headers, at: Date.now() };
    s.received.push(pushed);
    const answer = s.answer(pushed);
    setTimeout(() => {
      if (stream.destroyed) return;
      stream.respond({ ':status': answer.status, 'apns-id': String(headers['apns-id'] ?? ''), ...answer.headers });
      stream.end(answer.status === 200 ? undefined : JSON.stringify(answer.body ?? { reason: 'BadRequest' }));
    }, s.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  s.env = {
    ASSENT_APNS_HOST: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    ASSENT_APNS_SANDBOX_HOST: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    ASSENT_APNS_CA_FILE: caFile,
  };
  s.close = () => new Promise((resolve) => server.close(() => resolve()));
  return s;
}

/** The answer APNs gives for a token that is no longer active. */
export const APNS_UNREGISTERED: PushAnswer = {
  status: 410,
  body: { reason: 'Unregistered', timestamp: Date.now() },
};
