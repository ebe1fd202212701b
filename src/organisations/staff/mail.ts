/**
 * The mail of a staff invitation (docs/staff.md "Inviting staff"). Plain text, like an individual's invitation
 * (`src/organisations/invitations/mail.ts`): no remote images or tracking, and a link the reader can check.
 */
import { randomUUID } from 'node:crypto';
import type { Mail } from '../../platform/mail/mailer.js';
import { lifetimeInWords } from '../invitations/mail.js';
import { roleName } from './service.js';

/**
 * The mail carrying a staff invitation link.
 * @param to - the invited address.
 * @param organisation - the organisation's name.
 * @param roles - the RoleIDs granted (1–4).
 * @param link - `{ASSENT_PUBLIC_URL}/staff-invitations/accept#token=…`.
 * @param ttlSeconds - how long the link works (seconds).
 */
export function staffInvitationMail(
  to: string,
  organisation: string,
  roles: readonly number[],
  link: string,
  ttlSeconds: number,
): Mail {
  const named = roles.map(roleName).join(', ');
  return {
    to,
    subject: `Invitation to administer ${organisation}`,
    text: [
      `You are invited to the staff of "${organisation}" in its consent and identity service, as: ${named}.`,
      '',
      `To accept, open this link within ${lifetimeInWords(ttlSeconds)}. Sign in with your account for this address, or`,
      'create one there with a password of your own:',
      '',
      link,
      '',
      'The link works once. Nothing happens unless you accept; if you did not expect this, ignore this mail.',
    ].join('\n'),
    messageId: `${randomUUID()}.staff-invitation@assent`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
