/**
 * The ceiling: a bare Fastify server in its own process on a free port of 127.0.0.1 that answers,
 * from memory, the JSON bodies Assent answered (fetched once from Assent, served verbatim), on the
 * same route patterns. No authentication, no database, no schema serialisation: what Node and
 * Fastify alone cost per request on this machine, under the same autocannon settings.
 *
 * The parent side is `startCeiling`; run as a script (`node consent-ceiling.mjs <routes.json>`,
 * with PORT and HOST set) this file is the child.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './cleanup.mjs';
import { HOST, ROOT } from './config.mjs';
import { freePort, log } from './util.mjs';

const SELF = fileURLToPath(import.meta.url);

/**
 * @typedef {object} CeilingRoute
 * @property {string} method   GET, PATCH…
 * @property {string} pattern  a Fastify route pattern (the same as Assent's, under /v1)
 * @property {Record<string, string>} bodies  body by exact request URL (path and query)
 * @property {string} [fallback]  body for any other URL of the pattern
 * @property {number} [status]  status code (200)
 */

/**
 * Starts the ceiling child and registers its stop with onCleanup.
 * @param {CeilingRoute[]} routes
 * @returns a Target for consent-cannon.mjs: `{label, base, child, dbName: null, stop()}`.
 */
export async function startCeiling(routes) {
  const port = await freePort();
  const file = path.join(os.tmpdir(), `assent-bench-ceiling-${process.pid}-${Date.now()}.json`);
  // Several pages share a route pattern: one Fastify route per (method, pattern), bodies merged.
  const merged = new Map();
  for (const r of routes) {
    const key = `${r.method} ${r.pattern}`;
    const seen = merged.get(key);
    if (seen) Object.assign(seen.bodies, r.bodies);
    else merged.set(key, { ...r, bodies: { ...r.bodies } });
  }
  writeFileSync(file, JSON.stringify([...merged.values()]));
  onCleanup(() => rmSync(file, { force: true }));
  const child = spawn(process.execPath, [SELF, file], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const target = {
    label: 'ceiling',
    base: `http://${HOST}:${port}`,
    child,
    dbName: null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  onCleanup(() => target.stop());
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ceiling server not ready after 15 s:\n${output}`)), 15_000);
    const fail = () => {
      clearTimeout(timer);
      reject(new Error(`ceiling server exited during start-up:\n${output}`));
    };
    child.once('exit', fail);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('ceiling ready')) {
        clearTimeout(timer);
        child.off('exit', fail);
        resolve();
      }
    });
  });
  log(`ceiling: bare Fastify pid ${child.pid} on ${target.base}, ${merged.size} routes`);
  return target;
}

async function serveChild(file) {
  const { default: Fastify } = await import('fastify');
  const routes = JSON.parse(readFileSync(file, 'utf8'));
  const app = Fastify({ logger: false });
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.pattern,
      handler: (req, reply) => {
        const body = route.bodies[req.url] ?? route.fallback;
        if (body === undefined)
          return reply
            .code(404)
            .type('application/json; charset=utf-8')
            .send('{"Code":404,"Message":"no body recorded"}');
        return reply
          .code(route.status ?? 200)
          .type('application/json; charset=utf-8')
          .send(body);
      },
    });
  }
  await app.listen({ port: Number(process.env.PORT), host: process.env.HOST });
  process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
  console.log('ceiling ready');
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) await serveChild(process.argv[2]);
