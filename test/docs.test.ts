/**
 * The generated parts of docs/ match the code (docs/development.md "Generated documentation"):
 * the configuration table (the setting declarations of src/platform/config/settings.ts), the
 * access-policy table (ACCESS_POLICY and the routes) and docs/openapi.json. The generator reads
 * dist/, which `npm test` builds first. Store-independent: the generator always builds the app on
 * a throw-away PGlite directory, so on PostgreSQL runs it checks the same thing.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');

describe('generated documentation', () => {
  it('is up to date with the code (else: npm run docs)', async () => {
    const run = await promisify(execFile)(process.execPath, ['scripts/docs.mjs', '--check'], { cwd: root }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  }, 120_000);

  it("writes a fixed server URL into docs/openapi.json, not this deployment's", () => {
    const doc = JSON.parse(readFileSync(path.join(root, 'docs/openapi.json'), 'utf8')) as {
      servers: { url: string }[];
    };
    expect(doc.servers).toEqual([{ url: 'http://127.0.0.1:8080' }]);
  });
});
