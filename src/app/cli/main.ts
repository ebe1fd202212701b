/**
 * The `assent` command line.
 *
 *   assent serve          serve HTTP (PORT, HOST, ASSENT_PUBLIC_URL, DATABASE_URL or ASSENT_DATA_DIR, ASSENT_SECRET)
 *   assent migrate        apply database migrations
 *   assent import FILE    create or update organisations, clients and users from FILE; prints key → ID JSON
 *   assent keys rotate    start signing with a new key; old keys stay in the JWKS until their tokens expire;
 *                         stage the next SAML SP keys (published in the SP metadata, not used yet)
 *   assent keys activate-saml  sign SAML requests with the staged SP keys (docs/operations.md "Key rotation")
 *   assent user delete ID delete an account (GDPR Art. 17); its consent history stays under the ID as a pseudonym
 *
 * Exit codes: 0 success, 1 failure, 2 usage or configuration error.
 */
import { readFileSync } from 'node:fs';
import { type Config, ConfigError, loadConfig } from '../../platform/config/load.js';
import { SealError } from '../../platform/crypto/master-key.js';
import { DataDirLockedError } from '../../platform/db/lock.js';
import { safeErrorMessage } from '../../platform/util/errors.js';
import { type AdminOutcome, callAdminSocket } from './admin-socket.js';
import { embeddedStoreBusy, openStore } from './store.js';

const USAGE = `usage: assent <command>
  serve          serve the HTTP API
  migrate        apply database migrations
  import FILE    create or update what FILE declares; prints the IDs as JSON
  keys rotate    sign new tokens with a fresh key; stage the next SAML SP keys (published, not used yet)
  keys activate-saml
                 switch SAML signing and encryption to the staged SP keys
  user delete ID delete a user's account (personal data, image, credentials); the consent history stays, pseudonymised
`;

class UsageError extends Error {}

function fail(message: string, code: number): never {
  process.stderr.write(`assent: ${message}\n`);
  process.exit(code);
}

/** Runs an admin command in this process, or in the running server that holds the embedded store. */
async function runAdmin(config: Config, command: string, payload: unknown): Promise<void> {
  let outcome: AdminOutcome;
  if (await embeddedStoreBusy(config)) {
    outcome = await callAdminSocket(config.dataDir, command, payload).catch((err: NodeJS.ErrnoException) => ({
      ok: false as const,
      message:
        `the data directory ${config.dataDir} is held by a running server that does ` +
        `not answer on its admin socket (${err.code ?? err.message}); retry once it is up`,
      exitCode: 1,
    }));
  } else {
    const opened = await openStore(config);
    try {
      await opened.store.migrate();
      // Loaded on use: a command imports only what it runs (the server and its routes are not needed here).
      const { adminCommands } = await import('./commands.js');
      const context = () => import('../context.js').then(({ createContext }) => createContext(config, opened.store));
      outcome = await adminCommands(config, opened.store, context)(command, payload);
    } finally {
      await opened.close();
    }
  }
  if (!outcome.ok) fail(outcome.message, outcome.exitCode);
  process.stdout.write(`${JSON.stringify(outcome.result, null, 2)}\n`);
}

function readJsonFile(file: string | undefined): unknown {
  if (!file) throw new UsageError('import needs a FILE');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Entry point of `bin/assent.cjs`.
 * @param args - the arguments after the program name.
 */
export async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  try {
    const config = loadConfig();
    switch (command) {
      case 'serve':
        return await (await import('./serve.js')).serve(config);
      case 'migrate':
        return await runAdmin(config, 'migrate', null);
      case 'import':
        return await runAdmin(config, 'import', readJsonFile(rest[0]));
      case 'keys':
        if ((rest[0] !== 'rotate' && rest[0] !== 'activate-saml') || rest.length > 1)
          throw new UsageError('keys takes one subcommand: rotate or activate-saml');
        return await runAdmin(config, `keys/${rest[0]}`, null);
      case 'user':
        if (rest[0] !== 'delete' || !rest[1] || rest.length > 2) throw new UsageError('usage: assent user delete ID');
        return await runAdmin(config, 'user/delete', { id: rest[1] });
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return;
      default:
        throw new UsageError(`unknown command "${command}"\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) fail(err.message, 2);
    if (err instanceof DataDirLockedError) fail(err.message, 1);
    if (err instanceof SealError) fail(`${err.message}. Is ASSENT_SECRET the one this store was created with?`, 1);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND')
      fail(`cannot reach the database (${code}): check DATABASE_URL`, 1);
    if (code === 'EADDRINUSE') fail(`the port is in use (${(err as Error).message})`, 1);
    fail(`unexpected error: ${safeErrorMessage(err)}`, 1);
  }
}
