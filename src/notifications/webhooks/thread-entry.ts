/**
 * The delivery thread's own start (a `worker_threads` entry; thread.ts starts it): a lower scheduling priority, its own
 * PostgreSQL connections, master key and mailer, and a dispatcher (dispatcher.ts) woken by the messages of the request
 * thread. Messages in: `{type: 'numbered', orgId}` (the sequencer numbered that organisation's events),
 * `{type: 'kick'}` (a redelivery is due), `{type: 'stop'}`. Messages out: `{type: 'failure', message, code}` for each
 * failed round (the request thread logs it; never a query or its parameters), `{type: 'stopped'}` once stopped and
 * closed.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../../platform/config/load.js';
import { loadMasterKey } from '../../platform/crypto/master-key.js';
import { openPostgres } from '../../platform/db/open.js';
import { databaseErrorCode } from '../../platform/db/unavailable.js';
import { createMailer } from '../../platform/mail/mailer.js';
import { safeErrorMessage } from '../../platform/util/errors.js';
import { WebhookSecrets } from './secrets.js';
import { newDispatcher } from './start.js';
import { THREAD_APPLICATION_NAME, THREAD_NICE, THREAD_POOL_SIZE, type ThreadMessage } from './thread.js';

const port = parentPort;
const { config } = workerData as { config: Config };
if (port && config.databaseUrl) {
  lowerPriority();
  // Named, so that an operator tells the delivery thread's connections from the requests' (`pg_stat_activity`).
  const url = new URL(config.databaseUrl);
  url.searchParams.set('application_name', THREAD_APPLICATION_NAME);
  const store = openPostgres(url.toString(), THREAD_POOL_SIZE);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir });
  const secrets = new WebhookSecrets(loadMasterKey(config.secret, config.dataDir));
  const dispatcher = newDispatcher(store.db, secrets, mailer, config);
  const numbered: Array<(orgId: string) => void> = [];
  dispatcher.start({ onNumbered: (listener) => void numbered.push(listener) }, (err) =>
    port.postMessage({ type: 'failure', message: safeErrorMessage(err), code: databaseErrorCode(err) }),
  );
  port.on('message', (message: ThreadMessage) => {
    if (message.type === 'numbered') for (const listener of numbered) listener(message.orgId);
    else if (message.type === 'kick') dispatcher.kick();
    else if (message.type === 'stop')
      void (async () => {
        try {
          await dispatcher.stop();
          mailer.close();
          await store.close();
        } finally {
          port.postMessage({ type: 'stopped' });
        }
      })();
  });
}

/**
 * Lowers this thread's scheduling priority to THREAD_NICE (Linux: `setpriority` of the thread's own ID, which affects
 * this thread alone; lowering needs no privilege). Deliveries keep pace with time to spare, so when the cores are
 * contended the requests' thread and the database go first, and the deliveries take what is left.
 */
function lowerPriority(): void {
  try {
    // `/proc/thread-self` is `<pid>/task/<tid>` on Linux; elsewhere this fails and the priority stays as it is.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, THREAD_NICE);
  } catch {
    // Not Linux, or not permitted: the thread runs at the process's priority.
  }
}
