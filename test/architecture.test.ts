/**
 * The architecture rules of src/ (docs/development.md "Bounded contexts") are dependency-cruiser's
 * (.dependency-cruiser.cjs), run by `npm run lint:arch` in `npm test`. This test runs the same command on the real
 * tree, which must be clean and must include the .tsx files, and on a copy of src/ with one planted violation of
 * each rule, each of which must be named: a rule that cannot fail would pass anything.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}
interface Cruise {
  modules: Array<{ source: string; dependencies: Array<{ resolved: string; dependencyTypes: string[] }> }>;
  summary: { violations: Violation[] };
}

/** Runs dependency-cruiser over `dir`/src with the project's configuration; resolves with its JSON result. */
async function cruise(dir: string): Promise<Cruise> {
  const run = promisify(execFile);
  // Exit status 1 means "violations found": the JSON on stdout is what the test reads either way.
  const { stdout } = await run(
    process.execPath,
    [CLI, 'src', '--config', path.join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string; stderr?: string }) => {
    if (!err.stdout) throw new Error(`dependency-cruiser failed: ${err.stderr}`);
    return { stdout: err.stdout };
  });
  return JSON.parse(stdout) as Cruise;
}

/** Planted files (path under src/ → content) and edits, one violation of each rule. */
const PLANTED: Record<string, string> = {
  // A layer reaching up: platform/ must not know any business context.
  'platform/util/planted-layer.ts': "export { ConsentService } from '../../consent/index.js';\n",
  // identity/ stands below organisations/.
  'identity/planted-layer.ts':
    "import type { IndividualRow } from '../organisations/index.js';\nexport type X = IndividualRow;\n",
  // consent/ stands below notifications/ (the type-only import counts too).
  'consent/planted-layer.ts':
    "import type { NotificationService } from '../notifications/index.js';\nexport type X = NotificationService;\n",
  // federation/ and provider/ are siblings: provider may use federation, not the reverse.
  'federation/planted-layer.ts': "export { WalletSettingsService } from '../provider/index.js';\n",
  // web/ is below app/, the composition root.
  'web/planted-layer.tsx': "import { buildApp } from '../app/server.js';\nexport const x = buildApp;\n",
  // organisations/ stands below consent/.
  'organisations/planted-layer.ts': "export { PurposeService } from '../consent/index.js';\n",
  // notifications/ stands beside federation/, not above it.
  'notifications/planted-layer.ts': "export { federationRoutes } from '../federation/index.js';\n",
  // provider/ stands below accounts/.
  'provider/planted-layer.ts': "export { AccountService } from '../accounts/index.js';\n",
  // accounts/ stands below web/.
  'accounts/planted-layer.ts': "export { webRoutes } from '../web/index.js';\n",
  // A context's internals, from a .tsx file: only index.ts is public.
  'web/planted-internals.tsx':
    "import { ConsentService } from '../consent/records/service.js';\nexport const y = ConsentService;\n",
  // Another context's store: SQL stays with its context.
  'app/planted-store.ts': "import { findRecord } from '../consent/records/store.js';\nexport const z = findRecord;\n",
  // A context's own module going through its own entry (a load-order cycle in waiting).
  'consent/records/planted-own-entry.ts': "import { COUNTING } from '../index.js';\nexport const c = COUNTING;\n",
  // A type-only import closing a cycle between two folders: records/ imports model/, so model/ must not import records/.
  'consent/model/planted-cycle.ts':
    "import type { RecordViews } from '../records/reads.js';\nexport type V = RecordViews;\n",
  // A runtime cycle inside one folder (no folder cycle): two modules importing each other's values.
  'platform/util/planted-a.ts': "import { b } from './planted-b.js';\nexport const a = () => b;\n",
  'platform/util/planted-b.ts': "import { a } from './planted-a.js';\nexport const b = () => a;\n",
  // A new top-level folder, outside the layers; app/ may import every layer, but not an unknown one.
  'extra/thing.ts': "import { isId } from '../platform/util/ids.js';\nexport const thing = isId;\n",
  'app/planted-unknown.ts': "export { thing } from '../extra/thing.js';\n",
};

/** Rule → the planted module (under src/) whose import it must name. */
const EXPECTED: Array<[rule: string, from: string]> = [
  ['layer-platform', 'platform/util/planted-layer.ts'],
  ['layer-identity', 'identity/planted-layer.ts'],
  ['layer-consent', 'consent/planted-layer.ts'],
  ['layer-federation', 'federation/planted-layer.ts'],
  ['layer-web', 'web/planted-layer.tsx'],
  ['layer-organisations', 'organisations/planted-layer.ts'],
  ['layer-notifications', 'notifications/planted-layer.ts'],
  ['layer-provider', 'provider/planted-layer.ts'],
  ['layer-accounts', 'accounts/planted-layer.ts'],
  ['layer-app', 'app/planted-unknown.ts'],
  ['top-level-folders', 'extra/thing.ts'],
  ['context-entry-only', 'web/planted-internals.tsx'],
  ['store-private', 'app/planted-store.ts'],
  ['entry-exposes-no-store', 'consent/index.ts'],
  ['no-own-entry', 'consent/records/planted-own-entry.ts'],
  ['no-folder-cycle', 'consent/model'],
  ['no-runtime-cycle', 'platform/util/planted-a.ts'],
];

describe('architecture rules (dependency-cruiser)', () => {
  let copy: string;
  let planted: Cruise;

  beforeAll(async () => {
    copy = mkdtempSync(path.join(tmpdir(), 'assent-arch-'));
    cpSync(path.join(ROOT, 'src'), path.join(copy, 'src'), { recursive: true });
    cpSync(path.join(ROOT, 'tsconfig.json'), path.join(copy, 'tsconfig.json'));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    for (const [file, text] of Object.entries(PLANTED)) {
      const full = path.join(copy, 'src', file);
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
    // The consent context's entry re-exporting a store.
    const index = path.join(copy, 'src/consent/index.ts');
    writeFileSync(index, `${readFileSync(index, 'utf8')}export { findRecord } from './records/store.js';\n`);
    planted = await cruise(copy);
  }, 120_000);

  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('src/ breaks no rule, and the .tsx files are read with their imports', async () => {
    const real = await cruise(ROOT);
    const found = real.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(found).toEqual([]);
    const tsx = real.modules.filter((m) => m.source.endsWith('.tsx'));
    expect(tsx.length).toBeGreaterThan(20);
    expect(tsx.some((m) => m.dependencies.some((d) => d.resolved.startsWith('src/platform/')))).toBe(true);
    // Type-only imports are dependencies too (they count for the folder-cycle and layer rules).
    expect(real.modules.some((m) => m.dependencies.some((d) => d.dependencyTypes.includes('type-only')))).toBe(true);
  }, 120_000);

  it.each(EXPECTED)('the rule %s fails on a planted violation in src/%s', (rule, from) => {
    const hits = planted.summary.violations.filter(
      (v) => v.rule.name === rule && (v.from === `src/${from}` || v.from.startsWith(`src/${from}/`)),
    );
    expect(hits, `${rule} did not name src/${from}`).not.toEqual([]);
  });

  it('every rule of the configuration has a planted violation here', async () => {
    const { forbidden } = (await import(path.join(ROOT, '.dependency-cruiser.cjs'))).default as {
      forbidden: Array<{ name: string }>;
    };
    const covered = new Set(EXPECTED.map(([rule]) => rule));
    expect(forbidden.map((r) => r.name).filter((n) => !covered.has(n))).toEqual([]);
  });
});
