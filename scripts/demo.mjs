#!/usr/bin/env node
// `npm run demo`: imports examples/demo.json into the embedded store (ASSENT_DATA_DIR, default
// ./data), its consent history moved to the 90 days before now (scripts/demo-history.mjs), serves it, and
// prints the URL, the docs URL, the dashboard's and the console's URLs and the demo credentials. Ctrl-C stops it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HISTORY_PASSWORD, WINDOW_DAYS, withHistory } from './demo-history.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'bin', 'assent.cjs');
const demoFile = path.join(root, 'examples', 'demo.json');
const env = { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
const host = env.HOST || '127.0.0.1';
const port = env.PORT || '8080';
const url = (env.ASSENT_PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, '');

const demo = withHistory(JSON.parse(readFileSync(demoFile, 'utf8')), Date.now());
const tmp = mkdtempSync(path.join(os.tmpdir(), 'assent-demo-'));
const windowed = path.join(tmp, 'demo.json');
writeFileSync(windowed, JSON.stringify(demo));
const imported = spawnSync(process.execPath, [cli, 'import', windowed], { env, encoding: 'utf8' });
rmSync(tmp, { recursive: true, force: true });
if (imported.status !== 0) {
  process.stderr.write(imported.stderr || imported.stdout);
  process.exit(imported.status ?? 1);
}

const server = spawn(process.execPath, [cli, 'serve'], { env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill('SIGTERM'));
server.on('exit', (code) => process.exit(code ?? 0));

const deadline = Date.now() + 30_000;
while (Date.now() < deadline) {
  try {
    if ((await fetch(`${url}/readyz`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 200));
}

const lines = [
  '',
  `Assent is serving the demo at ${url}`,
  `  API base:  ${url}/v1`,
  `  API docs:  ${url}/docs   (OpenAPI: ${url}/openapi.json)`,
  `  Privacy dashboard (individuals): ${url}/dashboard`,
  `  Console (organisation staff):     ${url}/console`,
  `  Client ID: ${demo.clients[0].clientId}`,
  '  Demo credentials:',
];
for (const org of demo.organisations) {
  for (const a of org.admins ?? [])
    lines.push(`    admin of ${org.name}: ${a.username} / ${a.password}   (roles: ${a.roles.join(', ')})`);
  const withHistory = (org.individuals ?? []).filter((i) => i.consentHistory);
  for (const i of org.individuals ?? [])
    if (!i.consentHistory) lines.push(`    individual of ${org.name}: ${i.username} / ${i.password}`);
  if (withHistory.length > 0)
    lines.push(
      `    ${withHistory.length} more individuals of ${org.name} with ${WINDOW_DAYS} days of consent history ` +
        `(${withHistory[0].username}, …) / ${HISTORY_PASSWORD}`,
    );
}
lines.push('  Stop with Ctrl-C.', '');
process.stdout.write(`${lines.join('\n')}\n`);
