/**
 * Loopback stand-ins of FCM and APNs for the push fan-out of measure (f) (bench/README.md), and
 * their ceilings: what each accepts from a load generator alone. They check what the services
 * check, once per credential rather than once per request (as the real services cache a
 * connection's or a bearer's verification): FCM's JWT-bearer grant (RS256 signature with the
 * service-account key's public half, `iss`, `aud`, scope) and then the bearer it issued on each
 * send; APNs's HTTP/2 over TLS with an ES256 provider token (`kid`, `iss`, signature), `apns-topic`
 * and `apns-push-type`. The test suite's stand-ins (test/helpers/push.ts) check the same per request.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { onCleanup } from './cleanup.mjs';
import { HOST } from './config.mjs';
import { r1 } from './util.mjs';

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const b64 = (x) => Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)).toString('base64url');
const parts = (jwt) => jwt.split('.').map((p, i) => (i < 2 ? JSON.parse(Buffer.from(p, 'base64url')) : p));

/** Verifies a compact JWS with node:crypto (RS256 or ES256); throws when the signature is wrong. */
function verifyJws(jwt, publicKey, alg) {
  const [h, p, s] = jwt.split('.');
  const ok =
    alg === 'RS256'
      ? verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url'))
      : verify(
          'sha256',
          Buffer.from(`${h}.${p}`),
          { key: publicKey, dsaEncoding: 'ieee-p1363' },
          Buffer.from(s, 'base64url'),
        );
  if (!ok) throw new Error('bad signature');
}

/** An ES256 provider token of `key` (a KeyObject), as an APNs client signs it. */
export function providerToken(key, keyId, teamId) {
  const input = `${b64({ alg: 'ES256', kid: keyId })}.${b64({ iss: teamId, iat: Math.floor(Date.now() / 1000) })}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

function counter() {
  return { posts: 0, tokens: new Set(), refused: 0, firstAt: null, lastAt: null };
}

function count(stats, token) {
  const now = performance.now();
  stats.posts++;
  stats.firstAt ??= now;
  stats.lastAt = now;
  stats.tokens.add(token);
}

/** Starts both stand-ins; `env` points a server at them. */
export async function startPushStandIns() {
  // FCM: a service-account key, the grant endpoint and the send endpoint, over http/1.1 keep-alive.
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const projectId = 'assent-bench';
  const clientEmail = `bench@${projectId}.iam.gserviceaccount.com`;
  const fcmStats = counter();
  const bearers = new Set([`ya29.bench-${randomBytes(12).toString('hex')}`]);
  const fcm = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const refuse = (status) => {
        fcmStats.refused++;
        res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{}}');
      };
      if (req.url === '/token') {
        try {
          const form = new URLSearchParams(raw);
          const assertion = form.get('assertion');
          const [header, claims] = parts(assertion);
          if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || header.alg !== 'RS256')
            return refuse(400);
          verifyJws(assertion, rsa.publicKey, 'RS256');
          if (
            claims.iss !== clientEmail ||
            claims.aud !== GOOGLE_TOKEN_URL ||
            !claims.scope.split(' ').includes(FCM_SCOPE)
          )
            return refuse(400);
        } catch {
          return refuse(400);
        }
        const token = `ya29.${randomBytes(24).toString('base64url')}`;
        bearers.add(token);
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
      }
      if (req.url !== `/v1/projects/${projectId}/messages:send`) return refuse(404);
      if (!bearers.has((req.headers.authorization ?? '').slice(7))) return refuse(401);
      let message;
      try {
        message = JSON.parse(raw).message;
      } catch {
        return refuse(400);
      }
      if (typeof message?.token !== 'string') return refuse(400);
      count(fcmStats, message.token);
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"name":"projects/${projectId}/messages/1"}`);
    });
  });
  fcm.keepAliveTimeout = 60_000;
  await new Promise((resolve) => fcm.listen(0, HOST, resolve));
  const fcmOrigin = `http://${HOST}:${fcm.address().port}`;

  // APNs: a .p8 key, and HTTP/2 over TLS with a self-signed certificate for 127.0.0.1.
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-bench-apns-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${HOST}`,
      '-addext',
      `subjectAltName=IP:${HOST}`,
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  const apnsIds = { keyId: 'BENCHKEY01', teamId: 'BENCHTEAM1', bundleId: 'example.acme.app' };
  const apnsStats = counter();
  const verified = new Set();
  const apns = http2.createSecureServer({
    cert,
    key: readFileSync(path.join(dir, 'key.pem')),
    peerMaxConcurrentStreams: 1000,
  });
  apns.on('stream', (stream, headers) => {
    let raw = '';
    stream.setEncoding('utf8');
    stream.on('data', (c) => (raw += c));
    stream.on('end', () => {
      const refuse = (status, reason) => {
        apnsStats.refused++;
        stream.respond({ ':status': status });
        stream.end(JSON.stringify({ reason }));
      };
      const m = /^\/3\/device\/([0-9a-f]+)$/i.exec(headers[':path']);
      if (headers[':method'] !== 'POST' || !m) return refuse(405, 'MethodNotAllowed');
      const bearer = /^bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (!bearer) return refuse(403, 'MissingProviderToken');
      if (!verified.has(bearer)) {
        try {
          const [header, claims] = parts(bearer);
          if (header.alg !== 'ES256' || header.kid !== apnsIds.keyId || claims.iss !== apnsIds.teamId)
            return refuse(403, 'InvalidProviderToken');
          verifyJws(bearer, ec.publicKey, 'ES256');
          verified.add(bearer);
        } catch {
          return refuse(403, 'InvalidProviderToken');
        }
      }
      if (headers['apns-topic'] !== apnsIds.bundleId) return refuse(400, 'TopicDisallowed');
      if (!headers['apns-push-type']) return refuse(400, 'InvalidPushType');
      if (!raw.includes('"aps"')) return refuse(400, 'PayloadEmpty');
      count(apnsStats, m[1]);
      stream.respond({ ':status': 200, 'apns-id': headers['apns-id'] ?? randomBytes(16).toString('hex') });
      stream.end();
    });
  });
  await new Promise((resolve) => apns.listen(0, HOST, resolve));
  const apnsHost = `${HOST}:${apns.address().port}`;

  const close = async () => {
    fcm.closeAllConnections();
    await new Promise((resolve) => fcm.close(resolve));
    await new Promise((resolve) => apns.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  onCleanup(close);
  return {
    env: {
      ASSENT_FCM_URL: fcmOrigin,
      ASSENT_FCM_TOKEN_URL: `${fcmOrigin}/token`,
      ASSENT_APNS_HOST: apnsHost,
      ASSENT_APNS_SANDBOX_HOST: apnsHost,
      ASSENT_APNS_CA_FILE: path.join(dir, 'cert.pem'),
    },
    fcm: {
      stats: fcmStats,
      credentials: {
        serviceaccount: {
          type: 'service_account',
          project_id: projectId,
          private_key_id: randomBytes(20).toString('hex'),
          private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }),
          client_email: clientEmail,
          token_uri: GOOGLE_TOKEN_URL,
        },
      },
      /** What the FCM stand-in alone accepts: autocannon sends with a bearer it issued. */
      ceiling: async (seconds) => {
        const result = await autocannon({
          url: `${fcmOrigin}/v1/projects/${projectId}/messages:send`,
          method: 'POST',
          connections: 64,
          duration: seconds,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${[...bearers][0]}` },
          body: JSON.stringify({ message: { token: 'fcm:ceiling', notification: { title: 't', body: 'b' } } }),
        });
        return r1(result['2xx'] / result.duration);
      },
    },
    apns: {
      stats: apnsStats,
      credentials: {
        key: ec.privateKey.export({ type: 'pkcs8', format: 'pem' }),
        keyid: apnsIds.keyId,
        teamid: apnsIds.teamId,
        bundleid: apnsIds.bundleId,
      },
      /** What the APNs stand-in alone accepts: one HTTP/2 session, 64 streams in flight, as Assent's transport. */
      ceiling: (seconds) =>
        h2Load(apnsHost, cert, providerToken(ec.privateKey, apnsIds.keyId, apnsIds.teamId), apnsIds.bundleId, seconds),
    },
    close,
  };
}

/** Sends pushes over one HTTP/2 session, `inFlight` at once, for `seconds`; answers the 200s per second. */
async function h2Load(host, ca, bearer, topic, seconds, inFlight = 64) {
  const session = http2.connect(`https://${host}`, { ca });
  const body = JSON.stringify({ aps: { alert: { title: 't', body: 'b' } } });
  const token = 'ab'.repeat(32);
  const end = performance.now() + seconds * 1000;
  let ok = 0;
  const one = () =>
    new Promise((resolve) => {
      const req = session.request({
        ':method': 'POST',
        ':path': `/3/device/${token}`,
        authorization: `bearer ${bearer}`,
        'apns-topic': topic,
        'apns-push-type': 'alert',
      });
      req.on('response', (h) => {
        if (h[':status'] === 200) ok++;
      });
      req.on('end', resolve);
      req.on('error', resolve);
      req.resume();
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  session.close();
  return r1(ok / elapsed);
}
