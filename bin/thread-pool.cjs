// The size of libuv's thread pool for the `assent` command (README "Configuration",
// UV_THREADPOOL_SIZE). argon2id hashing and verification run on that pool. Its default of 4 threads
// caps password checks at 4 cores on a bigger machine and, on a smaller one, time-slices more
// 19 MiB verifications than there are cores, which costs their caches (bench/README.md). At least
// 2, so that a slow DNS lookup (libuv lets those take half the pool) never holds every thread.
// CommonJS, like bin/assent.cjs, which must read it before any ES module loads; the benchmark
// reads it too, to give its floor servers the servers' size.
'use strict';
const { availableParallelism } = require('node:os');

/**
 * The pool size to run with.
 * @param {NodeJS.ProcessEnv} env - the environment; a non-empty UV_THREADPOOL_SIZE wins.
 * @returns {string} the value for UV_THREADPOOL_SIZE (threads): as set, else one per core, at least 2.
 */
function threadPoolSize(env) {
  return env.UV_THREADPOOL_SIZE || String(Math.max(2, availableParallelism()));
}

module.exports = { threadPoolSize };
