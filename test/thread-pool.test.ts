/**
 * The libuv thread pool of `assent serve` (docs/configuration.md "Configuration", UV_THREADPOOL_SIZE), where
 * argon2id runs: one thread per core, at least 2, unless UV_THREADPOOL_SIZE says otherwise. The
 * pool's threads are counted from /proc, so these run on Linux (as CI does) only.
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/assent.js';
import { DEMO_ALICE, DEMO_FILE, freshStore, runCli, startServe, type TestStore } from './helpers/cli.js';

describe.skipIf(process.platform !== 'linux')('assent serve: the thread pool', { timeout: 120_000 }, () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore();
    const imported = await runCli(['import', DEMO_FILE], store.env);
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(() => store?.cleanup());

  /** Starts `assent serve` with `env`, signs alice in (so argon2id has run), and counts the process's threads. */
  async function threadsAfterLogin(env: Record<string, string>): Promise<number> {
    const server = await startServe({ ...store.env, ...env });
    try {
      const login = await call(`${server.base}/v1.1/users/login`, { body: DEMO_ALICE });
      expect(login.status).toBe(200);
      return readdirSync(`/proc/${server.child.pid}/task`).length;
    } finally {
      await server.stop();
    }
  }

  it('has one thread per core, at least 2, when UV_THREADPOOL_SIZE is unset, and UV_THREADPOOL_SIZE when it is set', async () => {
    const chosen = await threadsAfterLogin({ UV_THREADPOOL_SIZE: '' });
    const sixteen = await threadsAfterLogin({ UV_THREADPOOL_SIZE: '16' });
    // Every other thread (V8's platform workers, the main thread) is the same in both processes.
    expect(sixteen - chosen).toBe(16 - Math.max(2, os.availableParallelism()));
  });
});
