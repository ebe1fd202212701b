import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Migrates one PGlite directory and (on PostgreSQL) one template database per run; test files copy them.
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Test files of one worker share its module graph: src/ and its dependencies load once per
    // worker instead of once per file. Each file still starts its own server on its own store.
    isolate: false,
    // PGlite is PostgreSQL compiled to WebAssembly; a test process lives seconds, too short for V8's
    // optimising tier to pay back its compile time, so the baseline compiler alone is cheaper.
    poolOptions: { forks: { execArgv: ['--liftoff-only'] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Files run in parallel (two cores); tests inside a file share one server and run in order.
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
  },
});
