/**
 * The administrative commands that run against an open store, whether in the CLI process or,
 * on a busy embedded store, inside the serving process through the admin socket.
 */

import type { Config } from '../../platform/config/load.js';
import { runInActivity } from '../../platform/core/activity.js';
import { NotFound } from '../../platform/core/errors.js';
import { loadMasterKey } from '../../platform/crypto/master-key.js';
import type { Store } from '../../platform/db/open.js';
import type { Context } from '../context.js';
import type { AdminHandler, AdminOutcome } from './admin-socket.js';

/**
 * Builds the handler of the admin commands over a store.
 * @param config - the configuration.
 * @param store - an open, migrated store.
 * @param context - the process's context (`createContext` over `store`): asked for only by a command
 *   that needs a service (`user/delete`), so that `import`, `migrate`, `keys/rotate` and `keys/activate-saml` start no
 *   more than they did; the serving process answers its own, the CLI builds one then.
 */
export function adminCommands(config: Config, store: Store, context: () => Promise<Context>): AdminHandler {
  // Audit entries written by a command name it as their source (docs/audit.md "Entries").
  return (command, payload) =>
    runInActivity({ source: command === 'import' ? 'import' : 'cli', requestId: '', clientIp: '' }, () =>
      run(command, payload),
    );

  async function run(command: string, payload: unknown): Promise<AdminOutcome> {
    switch (command) {
      case 'import': {
        // Each command loads the contexts it uses when it runs: a CLI process starts for one command, and a
        // context's entry loads all of that context (`assent migrate` needs none of them).
        const [{ ImportValidationError, runImport }, { consentHistoryImport }, { redirectUriImport }, provider] =
          await Promise.all([
            import('../organisations-as-code/import.js'),
            import('../../consent/index.js'),
            import('../../federation/index.js'),
            import('../../provider/index.js'),
          ]);
        const { oidcClientImport, walletSettingsImport } = provider;
        try {
          return {
            ok: true,
            result: await runImport(
              store.db,
              payload,
              config.argon2,
              redirectUriImport,
              oidcClientImport,
              walletSettingsImport(loadMasterKey(config.secret, config.dataDir), new URL(config.publicUrl).hostname),
              consentHistoryImport,
            ),
          };
        } catch (err) {
          if (err instanceof ImportValidationError) return { ok: false, message: err.message, exitCode: 1 };
          throw err;
        }
      }
      case 'keys/rotate': {
        const [{ maxTokenTtl, rotateSigningKey }, { stageSpKeys }] = await Promise.all([
          import('../../identity/index.js'),
          import('../../federation/index.js'),
        ]);
        const master = loadMasterKey(config.secret, config.dataDir);
        const kid = await rotateSigningKey(store.db, master, maxTokenTtl(config));
        // SAML SP keys are only staged: published beside the active ones until `keys/activate-saml`.
        const samlStaged = await stageSpKeys(store.db, master, new URL(config.publicUrl).hostname);
        return { ok: true, result: { kid, samlStaged } };
      }
      case 'keys/activate-saml': {
        const { activateSpKeys } = await import('../../federation/index.js');
        const activated = await activateSpKeys(store.db);
        if (activated.length === 0)
          return { ok: false, message: 'no SAML SP key is staged: run `assent keys rotate` first', exitCode: 1 };
        return { ok: true, result: { samlActivated: activated } };
      }
      case 'user/delete':
        try {
          await (await context()).accounts.delete(String((payload as { id?: unknown })?.id ?? ''), null);
          return { ok: true, result: { deleted: (payload as { id: string }).id } };
        } catch (err) {
          if (err instanceof NotFound)
            return {
              ok: false,
              message: `no user with ID ${String((payload as { id?: unknown })?.id).slice(0, 64)}`,
              exitCode: 1,
            };
          throw err;
        }
      case 'migrate':
        await store.migrate();
        return { ok: true, result: { migrated: true } };
      default:
        return { ok: false, message: `unknown admin command "${command}"`, exitCode: 2 };
    }
  }
}
