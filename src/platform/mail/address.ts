/** What counts as an e-mail address Assent mails to (invitations, notices to an organisation's Owners). */

/** Longest e-mail address (RFC 5321 §4.5.3.1.3 path limit, less the angle brackets). */
export const MAX_EMAIL = 254;
/** One `local@domain.tld` address: no spaces, no line breaks (mail header injection), one `@`. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Whether `text` is one e-mail address Assent can mail to (`local@domain.tld`, at most `MAX_EMAIL` characters).
 * @param text - already trimmed.
 */
export function isEmailAddress(text: string): boolean {
  return text.length <= MAX_EMAIL && EMAIL.test(text);
}
