/** Step 0: compile the product (`npx tsc -p .`) so that the server and dist/platform/config/load.js are current. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { opts, ROOT } from './config.mjs';
import { log } from './util.mjs';

export function build() {
  if (opts.skipBuild) {
    if (!existsSync(path.join(ROOT, 'dist', 'app', 'cli', 'main.js')))
      throw new Error('BENCH_SKIP_BUILD=1 but dist/app/cli/main.js is missing');
    log('build skipped (BENCH_SKIP_BUILD=1)');
    return;
  }
  log('building: npx tsc -p .');
  const res = spawnSync('npx', ['tsc', '-p', '.'], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (res.status !== 0)
    throw new Error(
      'npx tsc -p . failed (fix the build, ' +
        `or set BENCH_SKIP_BUILD=1 to bench the existing dist/):\n${res.stdout}${res.stderr}`,
    );
}
