/**
 * The loopback receiver of the event webhook measure (consent-events.mjs): a plain node:http server in its own
 * process on a free port of 127.0.0.1, so that the load generator in the bench process does not delay its receipts.
 * It answers 204 as soon as a request's body has arrived, then records the event's `id`, `subject`, `sequence` and
 * `time` with the receipt time (Date.now(), the same clock as the server's), and verifies the Standard Webhooks
 * signature (the `standardwebhooks` package, the secret of the creation answer) of every SAMPLE_EVERY-th delivery
 * and of the first ten.
 *
 * POSTs to `/floor` get the same work (body read, 204, JSON parse) but are only counted: the receiver's floor, what
 * it accepts from autocannon alone, and the load of floor R (`load`: a fixed rate beside a PATCH storm).
 *
 * The parent side is `startEventReceiver`; run as a script (`node event-receiver.mjs`, forked with an IPC channel)
 * this file is the child.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { onCleanup } from './cleanup.mjs';
import { HOST, ROOT } from './config.mjs';
import { log, r1 } from './util.mjs';

const SELF = fileURLToPath(import.meta.url);
/** Every how many deliveries one signature is verified (the first ten always are). */
const SAMPLE_EVERY = 20;

/**
 * Starts the receiver child and registers its stop with onCleanup.
 * @returns `{url, child, setSecret(secret), counts(), records(), floor(body, seconds, connections),
 *   load(body, rate, seconds, connections), stop()}`;
 *   `records()` resolves to `[id, subject, sequence, timeMs, receivedMs]` per delivery, in the order received.
 */
export async function startEventReceiver() {
  const child = fork(SELF, [], {
    cwd: ROOT,
    env: { ...process.env, HOST },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const pending = new Map();
  let nextId = 0;
  child.on('message', (m) => {
    const waiter = pending.get(m.id);
    if (waiter) {
      pending.delete(m.id);
      waiter(m.value);
    }
  });
  const ask = (cmd, arg) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => reject(new Error(`event receiver did not answer ${cmd}`)), 30_000);
      pending.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      child.send({ id, cmd, arg });
    });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  onCleanup(stop);
  const port = await Promise.race([
    ask('port'),
    exited.then(() => {
      throw new Error('event receiver exited during start-up');
    }),
  ]);
  const base = `http://${HOST}:${port}`;
  log(`events: receiver pid ${child.pid} on ${base}`);
  /** autocannon POSTs of `body` to /floor for `seconds`, as fast as it can or as `extra` says; answers 2xx/s. */
  const postFloor = async (body, seconds, connections, extra = {}) => {
    const result = await autocannon({
      url: `${base}/floor`,
      method: 'POST',
      connections,
      duration: seconds,
      headers: { 'content-type': 'application/json' },
      body,
      ...extra,
    });
    return r1(result['2xx'] / result.duration);
  };
  return {
    url: `${base}/hook`,
    child,
    setSecret: (secret) => ask('secret', secret),
    counts: () => ask('counts'),
    records: () => ask('records'),
    /**
     * What the receiver alone accepts: autocannon POSTs of `body` to /floor.
     * @returns POST/s (2xx per second).
     */
    floor: (body, seconds, connections) => postFloor(body, seconds, connections),
    /**
     * POSTs `body` to /floor at `rate` per second for `seconds` (autocannon's `overallRate`): the receiver's share of
     * a delivery, without Assent (consent-events.mjs, floor R).
     * @returns POST/s answered 2xx.
     */
    load: (body, rate, seconds, connections) =>
      postFloor(body, seconds, connections, { overallRate: Math.max(1, Math.round(rate)) }),
    stop,
  };
}

async function serveChild() {
  const { Webhook } = await import('standardwebhooks');
  const records = [];
  const ids = new Set();
  const stats = {
    deliveries: 0,
    distinct: 0,
    duplicates: 0,
    verified: 0,
    badSignatures: 0,
    unparsable: 0,
    floorPosts: 0,
    sampleBadSignature: null,
  };
  let webhook = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const receivedMs = Date.now();
      res.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      let event;
      try {
        event = JSON.parse(body);
      } catch {
        stats.unparsable++;
        return;
      }
      if (req.url === '/floor') {
        stats.floorPosts++;
        return;
      }
      const n = stats.deliveries++;
      if (ids.has(event.id)) stats.duplicates++;
      else ids.add(event.id);
      stats.distinct = ids.size;
      records.push([event.id, event.subject ?? null, event.sequence, Date.parse(event.time), receivedMs]);
      if (webhook && (n < 10 || n % SAMPLE_EVERY === 0)) {
        try {
          webhook.verify(body, req.headers);
          stats.verified++;
        } catch (err) {
          stats.badSignatures++;
          stats.sampleBadSignature ??= String(err.message);
        }
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, process.env.HOST, resolve));
  process.on('message', ({ id, cmd, arg }) => {
    let value = null;
    if (cmd === 'port') value = server.address().port;
    else if (cmd === 'secret') webhook = new Webhook(arg);
    else if (cmd === 'counts') value = { ...stats };
    else if (cmd === 'records') value = records;
    process.send({ id, value });
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) await serveChild();
