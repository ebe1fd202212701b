#!/usr/bin/env node
// Writes the parts of docs/ that are generated from the code (`npm run docs`), or, with `--check`,
// exits 1 naming every page that differs from what the code gives (test/docs.test.ts runs that):
// - the configuration table of docs/configuration.md, from the setting declarations of SETTINGS
//   (src/platform/config/settings.ts), which `loadConfig` also reads the environment through;
// - the access-policy table of docs/access-policy.md, from ACCESS_POLICY (src/platform/http/policy.ts)
//   and the routes the app registers for each operation;
// - docs/openapi.json, the app's OpenAPI document with sorted keys and a fixed server URL.
// It reads the compiled code in dist/: build first (`npx tsc -p .`; `npm run docs` does).
import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const dist = (file) => import(pathToFileURL(path.join(root, 'dist', file)).href);

/** The server URL written into docs/openapi.json: each deployment serves its own ASSENT_PUBLIC_URL. */
const PLACEHOLDER_SERVER = 'http://127.0.0.1:8080';

/** A Markdown table cell: pipes escaped, so a cell never splits. */
const cell = (text) => String(text).replaceAll('|', '\\|');

/**
 * The configuration table, one row per setting declaration of SETTINGS (src/platform/config/settings.ts),
 * the same declarations `loadConfig` reads the environment through.
 */
async function configTable() {
  const { SETTINGS } = await dist('platform/config/settings.js');
  const rows = SETTINGS.map(
    (s) => `| \`${s.env}\` | \`${cell(s.default)}\` | ${cell(s.allowed)} | ${cell(s.unit)} | ${cell(s.meaning)} |`,
  );
  return ['| variable | default | allowed | unit | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** Builds the app on a throw-away PGlite store; answers its OpenAPI document and its routes per operation. */
async function buildOnce() {
  const routes = [];
  // Every Fastify instance announces itself here before any route is added (Fastify's diagnostics channel).
  diagnostics.subscribe('fastify.initialization', ({ fastify }) => {
    fastify.addHook('onRoute', (r) => {
      const op = r.config?.operation;
      for (const method of [r.method].flat()) if (op && method !== 'HEAD') routes.push({ op, method, url: r.url });
    });
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'assent-docs-'));
  try {
    const { loadConfig } = await dist('platform/config/load.js');
    const { openPglite } = await dist('platform/db/open.js');
    const { createContext } = await dist('app/context.js');
    const { buildApp } = await dist('app/server.js');
    const config = loadConfig({ ASSENT_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    const store = await openPglite(config.dataDir);
    try {
      await store.migrate();
      const app = await buildApp(await createContext(config, store), { logLevel: 'silent' });
      await app.ready();
      const openapi = app.swagger();
      await app.close();
      return { openapi, routes };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The access-policy table: one row per operation of ACCESS_POLICY, with its methods and paths. */
async function policyTable(routes) {
  const { ACCESS_POLICY } = await dist('platform/http/policy.js');
  const { Role } = await dist('identity/users/roles.js');
  const roleName = new Map(Object.entries(Role).map(([name, id]) => [id, name]));
  const shown = (url) => url.replace(/^\/v1(?=\/)/, '{base}').replace(/:([A-Za-z]+)/g, '{$1}');
  const rows = Object.entries(ACCESS_POLICY).map(([op, rule]) => {
    const paths = [...new Set(routes.filter((r) => r.op === op).map((r) => `\`${r.method} ${shown(r.url)}\``))];
    const roles = rule.orgRoles ? rule.orgRoles.map((id) => roleName.get(id)).join(', ') : '';
    return `| \`${op}\` | ${paths.join(', ') || '(no route)'} | \`${rule.credential}\` | ${cell(roles)} | ${cell(rule.who)} |`;
  });
  return [
    '| operation | method and path | credential | roles in the organisation | who may call it |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** A copy of `value` whose object keys are sorted at every level, so the file's order is stable. */
function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys(value[k])]),
  );
}

/** `page` with the text between `<!-- generated:NAME -->` and the next `<!-- /generated -->` replaced. */
function withGenerated(page, name, body, file) {
  const open = `<!-- generated:${name} -->`;
  const start = page.indexOf(open);
  const end = page.indexOf('<!-- /generated -->', start);
  if (start < 0 || end < 0) throw new Error(`${file} has no ${open} … <!-- /generated --> markers`);
  return `${page.slice(0, start + open.length)}\n${body}\n${page.slice(end)}`;
}

const { openapi, routes } = await buildOnce();
const outputs = new Map();
const page = (file) => outputs.get(file) ?? readFileSync(path.join(root, file), 'utf8');
outputs.set(
  'docs/configuration.md',
  withGenerated(page('docs/configuration.md'), 'config', await configTable(), 'docs/configuration.md'),
);
outputs.set(
  'docs/access-policy.md',
  withGenerated(page('docs/access-policy.md'), 'access-policy', await policyTable(routes), 'docs/access-policy.md'),
);
outputs.set(
  'docs/openapi.json',
  `${JSON.stringify(sortedKeys({ ...openapi, servers: [{ url: PLACEHOLDER_SERVER }] }), null, 2)}\n`,
);

let stale = 0;
for (const [file, text] of outputs) {
  const full = path.join(root, file);
  let current;
  try {
    current = readFileSync(full, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === text) continue;
  if (check) {
    stale += 1;
    console.error(`${file} is out of date with the code: run \`npm run docs\` and commit the result`);
  } else {
    writeFileSync(full, text);
    console.log(`wrote ${file}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
