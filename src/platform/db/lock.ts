/**
 * Exclusive lock on the embedded data directory, so that a second Assent process on the same
 * directory fails with a clear message instead of corrupting PGlite's files.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

/** Thrown when another process holds the data directory. */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(readonly dir: string) {
    super(
      `The data directory ${dir} is in use by another Assent process (lock ${path.join(dir, 'assent.lock')}). ` +
        'Stop it, or set ASSENT_DATA_DIR to another directory.',
    );
  }
}

/**
 * Takes the lock on `dir`, creating the directory (mode 0700) if needed.
 *
 * The lock is a directory `assent.lock` whose mtime the holder refreshes every 5 s; a lock not
 * refreshed for 15 s (a crashed holder) is taken over.
 *
 * @param dir - the data directory (absolute path).
 * @returns a function that releases the lock.
 * @throws {DataDirLockedError} when another live process holds it.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    return await lockfile.lock(dir, {
      lockfilePath: path.join(dir, 'assent.lock'),
      stale: 15_000,
      update: 5_000,
      realpath: false,
      onCompromised: (err) => {
        // Someone removed or took our lock: continuing could corrupt the store.
        console.error(`assent: the data-directory lock was lost (${err.message}); exiting`);
        process.exit(1);
      },
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dir);
    throw err;
  }
}

/**
 * Tells whether a live process holds the lock on `dir`.
 *
 * @param dir - the data directory (absolute path).
 */
export async function isDataDirLocked(dir: string): Promise<boolean> {
  return lockfile
    .check(dir, { lockfilePath: path.join(dir, 'assent.lock'), stale: 15_000, realpath: false })
    .catch(() => false);
}
