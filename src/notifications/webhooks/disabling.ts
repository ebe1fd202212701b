/**
 * The disabling of webhooks that keep failing (docs/events.md "Retries"): a webhook whose every attempt has failed for
 * `ASSENT_EVENT_WEBHOOK_DISABLE_AFTER_SECONDS` is disabled and its organisation's Owners are mailed.
 */
import type { Db } from '../../platform/db/open.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import * as store from './store.js';

/**
 * Disables the webhooks whose attempts have all failed for `disableAfterSeconds`, and mails their organisation's
 * Owners.
 * @param owners - the e-mail addresses of an organisation's Owners.
 * @param disableAfterSeconds - seconds of failing.
 * @param onError - receives a mail that could not be sent (the webhook is disabled all the same).
 * @returns the IDs of the webhooks it disabled.
 * @throws the database's error.
 */
export async function disableFailing(
  db: Db,
  mailer: Mailer,
  owners: (orgId: string) => Promise<string[]>,
  disableAfterSeconds: number,
  onError: (err: unknown) => void,
): Promise<string[]> {
  const disabled = await store.disableFailing(db, new Date(Date.now() - disableAfterSeconds * 1000));
  for (const w of disabled) {
    for (const to of await owners(w.orgId)) {
      await mailer
        .send({
          to,
          subject: 'A webhook of your organisation was disabled',
          text:
            `Every delivery to the webhook ${w.payloadUrl} (ID ${w.id}) has failed since ` +
            `${w.failingSince?.toISOString()}, so Assent has disabled it.\n\n` +
            'Its failed deliveries stay in its deliveries log and can be redelivered once the receiver works; ' +
            'enable the webhook again to receive new events. Events of the time it was disabled can be read ' +
            'from the organisation’s change feed.\n',
          messageId: `webhook-disabled.${w.id}.${w.updatedAt.getTime()}@assent`,
        })
        .catch(onError);
    }
  }
  return disabled.map((w) => w.id);
}
