/**
 * The two mails of password changes: the reset link of a forgotten password, and the notice that a
 * password was changed (ASVS 5.0 V6.3.6: users are notified after updates to authentication details).
 * Plain text only: no remote images or tracking, and a link the reader can check before following.
 */
import { randomUUID } from 'node:crypto';
import type { Mail } from '../../platform/mail/mailer.js';

/** How long a reset link lives (minutes), as the mail tells the reader. */
export const RESET_LINK_MINUTES = 30;

/**
 * The mail carrying a reset link.
 * @param to - the account's e-mail address.
 * @param username - the account's username, so the reader knows which account is meant.
 * @param link - `{ASSENT_PUBLIC_URL}/password/reset#token=…`.
 */
export function resetLinkMail(to: string, username: string, link: string): Mail {
  return {
    to,
    subject: 'Reset your password',
    text: [
      `Someone, hopefully you, asked to reset the password of the account "${username}".`,
      '',
      `To choose a new password, open this link within ${RESET_LINK_MINUTES} minutes:`,
      '',
      link,
      '',
      'The link works once. Asking again makes this link stop working.',
      'If you did not ask, ignore this mail: your password stays as it is.',
    ].join('\n'),
    messageId: `${randomUUID()}.password-reset@assent`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}

/** How the password was changed. */
export type ChangeKind = 'session' | 'reset';

/**
 * The notice that a password was changed.
 * @param to - the account's e-mail address.
 * @param username - the account's username.
 * @param kind - `session`: by the signed-in user (other sessions ended); `reset`: through a reset link (every session
 * ended).
 * @param at - when (shown in UTC).
 */
export function passwordChangedMail(to: string, username: string, kind: ChangeKind, at: Date): Mail {
  const how =
    kind === 'session'
      ? 'It was changed from a signed-in session; every other session of the account was signed out.'
      : 'It was changed through a password-reset link; every session of the account was signed out.';
  return {
    to,
    subject: 'Your password was changed',
    text: [
      `The password of the account "${username}" was changed on ` +
        `${at.toISOString().replace('T', ' ').slice(0, 19)} UTC.`,
      how,
      '',
      'If this was you, there is nothing to do.',
      'If it was not, someone else may know your password or read your mail: ask for a password reset',
      'at once from the app you sign in with, and tell the organisation that manages your account.',
    ].join('\n'),
    messageId: `${randomUUID()}.password-changed@assent`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
