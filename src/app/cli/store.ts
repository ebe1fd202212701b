/** Opens the configured store for a CLI command, taking the data-directory lock when embedded. */
import type { Config } from '../../platform/config/load.js';
import { isDataDirLocked, lockDataDir } from '../../platform/db/lock.js';
import { openPglite, openPostgres, type Store } from '../../platform/db/open.js';

/** An open store and how to close it (and release the lock). */
export interface OpenedStore {
  store: Store;
  close(): Promise<void>;
}

/**
 * Opens `DATABASE_URL`, or the embedded store under an exclusive lock.
 * @throws {DataDirLockedError} when another process holds the data directory.
 */
export async function openStore(config: Config): Promise<OpenedStore> {
  if (config.databaseUrl) {
    const store = openPostgres(config.databaseUrl, config.dbPoolSize);
    return { store, close: () => store.close() };
  }
  const release = await lockDataDir(config.dataDir);
  try {
    const store = await openPglite(config.dataDir);
    return {
      store,
      async close() {
        await store.close();
        await release();
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}

/** True when the embedded store is held by a running server (so commands go to its admin socket). */
export async function embeddedStoreBusy(config: Config): Promise<boolean> {
  return !config.databaseUrl && (await isDataDirLocked(config.dataDir));
}
