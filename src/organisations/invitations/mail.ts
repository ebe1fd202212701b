/**
 * The mail of an invitation to an organisation. Plain text only, like the password mails
 * (`src/identity/passwords/mail.ts`): no remote images or tracking, and a link the reader can check.
 */
import { randomUUID } from 'node:crypto';
import type { Mail } from '../../platform/mail/mailer.js';

/**
 * A lifetime in words, for the reader (`7 days`, `1 hour`, `90 seconds`).
 * @param seconds - the lifetime (seconds).
 */
export function lifetimeInWords(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (seconds % 86400 === 0) return unit(seconds / 86400, 'day');
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

/**
 * The mail carrying an invitation link.
 * @param to - the invited address.
 * @param organisation - the organisation's name.
 * @param link - `{ASSENT_PUBLIC_URL}/invitations/accept#token=…`.
 * @param ttlSeconds - how long the link works (seconds).
 */
export function invitationMail(to: string, organisation: string, link: string, ttlSeconds: number): Mail {
  return {
    to,
    subject: `Invitation to join ${organisation}`,
    text: [
      `The organisation "${organisation}" invites you to join it, so that it can ask for and record your consents.`,
      '',
      `To accept, open this link within ${lifetimeInWords(ttlSeconds)} and sign in with your account:`,
      '',
      link,
      '',
      'The link works once. Nothing happens unless you accept; if you do not want to join, ignore this mail.',
    ].join('\n'),
    messageId: `${randomUUID()}.invitation@assent`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
