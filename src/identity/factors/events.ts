/**
 * What happens beside a change of a person's second factors (docs/security.md "Second factors"): the change is
 * recorded by `audit` (the composition root writes it to the audit log of each organisation where the person is
 * staff: docs/audit.md), and a used recovery code is mailed to the person (ASVS 5.0 V6.3.7: users are notified of
 * changes to, and use of, their authentication factors).
 */
import { randomUUID } from 'node:crypto';
import type { Db, Executor } from '../../platform/db/open.js';
import { isEmailAddress } from '../../platform/mail/address.js';
import type { Mail, Mailer } from '../../platform/mail/mailer.js';
import { credentialAccountById } from '../users/profile.js';
import type { FactorAction, FactorEvents } from './service.js';

/**
 * The notice that a recovery code was used.
 * @param left - unused codes left (count).
 */
export function recoveryCodeUsedMail(to: string, username: string, left: number, at: Date): Mail {
  return {
    to,
    subject: 'A recovery code of your account was used',
    text: [
      `A recovery code of the account "${username}" was used to sign in on ` +
        `${at.toISOString().replace('T', ' ').slice(0, 19)} UTC. ${left} unused code${left === 1 ? '' : 's'} left.`,
      '',
      'If it was you, nothing else is needed; make new codes when few are left.',
      'If it was not you, change your password now and renew your recovery codes: someone has one of them.',
    ].join('\n'),
    messageId: `${randomUUID()}.recovery-code@assent`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}

/** The factor events of one process. */
export class MailedFactorEvents implements FactorEvents {
  /**
   * @param db - reads the person's address.
   * @param mailer - sends the notice.
   * @param audit - records a change in its transaction (the organisations' audit logs).
   */
  constructor(
    private readonly db: Db,
    private readonly mailer: Mailer,
    private readonly audit: (tx: Executor, userId: string, action: FactorAction) => Promise<void>,
  ) {}

  changed(tx: Executor, userId: string, action: FactorAction): Promise<void> {
    return this.audit(tx, userId, action);
  }

  async recoveryCodeUsed(userId: string, left: number): Promise<void> {
    const account = await credentialAccountById(this.db, userId);
    const to = account ? [account.email.trim(), account.username].find(isEmailAddress) : undefined;
    if (!account || !to) return;
    try {
      await this.mailer.send(recoveryCodeUsedMail(to, account.username, left, new Date()));
    } catch {
      // The sign-in goes on: the use is in the audit log of the person's organisations, and in the code count.
    }
  }
}
