/**
 * `assent serve`: opens the store, applies migrations, serves HTTP, and shuts down gracefully on
 * SIGTERM/SIGINT (in-flight requests finish, also the handlers of clients that have gone, see
 * `trackHandlers`; then the store and the lock are released).
 */

import { ROTATION_CHANNEL } from '../../identity/index.js';
import type { Config } from '../../platform/config/load.js';
import { createContext } from '../context.js';
import { buildApp } from '../server.js';
import { serveAdminSocket } from './admin-socket.js';
import { adminCommands } from './commands.js';
import { openStore } from './store.js';

/**
 * Runs the server until a termination signal.
 * @param config - the configuration.
 * @throws {DataDirLockedError} | {SealError} | listen errors, reported by the CLI.
 */
export async function serve(config: Config): Promise<void> {
  const opened = await openStore(config);
  const { store } = opened;
  await store.migrate();
  // The first signing key is created at start: by one replica at a time (one key, not one each).
  const ctx = await store.exclusively(() => createContext(config, store));
  const app = await buildApp(ctx);
  await ctx.startWorkers(app.log);
  // A rotation by `assent keys rotate` in any process is announced by NOTIFY: sign with the new key at once.
  const unlisten = await store.listen(
    ROTATION_CHANNEL,
    () => void ctx.keys.reload().catch((err) => app.log.error({ err }, 'key reload failed')),
  );
  const closeSocket =
    store.kind === 'pglite'
      ? await serveAdminSocket(
          config.dataDir,
          adminCommands(config, store, async () => ctx),
        )
      : async () => {};
  await app.listen({ port: config.port, host: config.host });
  app.log.info({ publicUrl: config.publicUrl, store: store.kind }, 'assent is serving');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const grace = config.shutdownGraceSeconds;
    const force = setTimeout(() => {
      app.log.error({ running: app.requestsInFlight() }, `shutdown forced after ${grace} s; requests still running`);
      process.exit(1);
    }, grace * 1000).unref();
    await app.close();
    await ctx.stopWorkers();
    await closeSocket();
    await unlisten();
    await opened.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
