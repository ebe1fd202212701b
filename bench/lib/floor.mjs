/**
 * Step 2a: the floors of the PostgreSQL login storm. The same autocannon storm (storms.mjs,
 * `loginStorm`) against the two floor servers of floor-server.mjs: `verify` (HTTP and the argon2id
 * verification only) and `database` (the hash read by username, the verification, one write). Their
 * rates are what a login endpoint could reach on this machine if it did nothing else, and the
 * summary sets Assent's login rate against them as well as against the raw verify rate.
 */
import { fileURLToPath } from 'node:url';
import { opts } from './config.mjs';
import { serverThreadPool, startServer, stopServer } from './server.mjs';
import { loginStorm } from './storms.mjs';

const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.mjs', import.meta.url));

/**
 * Runs one floor: starts its server, storms it as the login storm does, stops it.
 * @param mode - `verify` or `database`.
 * @param env - the PostgreSQL phase's server environment (DATABASE_URL of the bench database).
 * @param dbName - the bench database, whose backends count as the floor's in the CPU split.
 * @param phc - the hash the `verify` floor checks against (argon2.mjs, `benchVerify(...).phc`).
 * @returns the storm's figures (as `loginStorm`) and `mode`.
 */
export async function floorStorm(mode, env, dbName, phc) {
  // An ES module entry starts the thread pool before its first line runs, so the size the real
  // server gets from bin/assent.cjs is passed in the environment.
  const floorEnv = { ...env, FLOOR_MODE: mode, FLOOR_PHC: phc, UV_THREADPOOL_SIZE: serverThreadPool() };
  const server = await startServer(`floor-${mode}`, floorEnv, dbName, [FLOOR_SERVER]);
  const storm = await loginStorm(server, opts.loginConnections);
  const shutdown = await stopServer(server);
  return { mode, ...storm, shutdown };
}
