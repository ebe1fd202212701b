/**
 * The password policy, applied wherever a password is set: the session reset, the forgotten-password
 * completion, `POST {base}/organizations/{organizationID}/users` and `assent import`
 * (docs/decisions/0011-passwords-and-reset.md).
 *
 * It follows NIST SP 800-63B §5.1.1.2 ("Memorized Secret Verifiers") and ASVS 5.0 V6.2:
 * - length 8 to 128 characters (ASVS 5.0 V6.2.1, V6.2.9), counted in Unicode code points of the
 *   NFKC form: NIST SP 800-63B §5.1.1.2 says "each Unicode code point SHALL be counted as a single
 *   character", so an emoji is one character (two UTF-16 units) and a ligature such as "ﬃ" counts
 *   as the three letters NFKC turns it into;
 * - any characters (spaces, emoji, any script), normalised to Unicode NFKC before hashing and
 *   verifying, so that the same password typed on two keyboards matches (§5.1.1.2);
 * - no composition rules (ASVS 5.0 V6.2.5);
 * - refused when it is in a list of common or breached passwords (ASVS 5.0 V6.2.4, V6.2.12): the
 *   49,233 passwords of `@zxcvbn-ts/language-common` (drawn from breach corpora), compared without
 *   regard to case, shipped in the package and loaded once, with no network;
 * - refused when it is one character repeated (`aaaaaaaa`, eight spaces) or a run of consecutive
 *   characters (`abcdefgh`, `98765432`): the "repetitive or sequential characters" that §5.1.1.2
 *   names among the values a blocklist holds;
 * - refused when it is a context-specific word (ASVS 5.0 V6.1.2, V6.2.11): the user's username,
 *   or its part before the `@` when the username is an e-mail address.
 *
 * A refusal is a 400 whose `Message` starts with "Password policy (<rule>)".
 */
import { dictionary } from '@zxcvbn-ts/language-common';
import { InvalidRequest } from '../../platform/core/errors.js';

/** Fewest characters (Unicode code points of the NFKC form) a password may have. */
export const MIN_PASSWORD_LENGTH = 8;
/** Most characters (Unicode code points of the NFKC form) a password may have. */
export const MAX_PASSWORD_LENGTH = 128;
/**
 * Longest password a request body may carry, in characters as sent, before the policy runs. Above
 * it the schema refuses the body at once, which bounds the work of normalising (denial of service).
 */
export const MAX_PASSWORD_INPUT = 4096;

let common: ReadonlySet<string> | undefined;

/**
 * The list of common and breached passwords, NFKC-normalised and lower-case, loaded on first use
 * and kept for the life of the process (49,233 entries, about 13 ms and a few MiB).
 */
export function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(dictionary['passwords-common'].map((p) => p.normalize('NFKC').toLowerCase()));
  return common;
}

/**
 * The form of a password that is hashed and verified: Unicode NFKC (NIST SP 800-63B §5.1.1.2).
 * @param password - as typed.
 */
export function normalisePassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * The length of a normalised password in Unicode code points (NIST SP 800-63B §5.1.1.2).
 * @param normalised - an NFKC string.
 */
export function passwordLength(normalised: string): number {
  let count = 0;
  for (const _ of normalised) count++;
  return count;
}

/** What the policy knows about the account whose password is set. */
export interface PasswordContext {
  /** The account's username, as stored (lower-case) or as sent. */
  username?: string;
}

/**
 * Whether a password is one character repeated or a run of consecutive code points, up or down.
 * @param normalised - an NFKC string of at least two characters.
 */
function repetitiveOrSequential(normalised: string): boolean {
  const points = Array.from(normalised, (c) => c.codePointAt(0)!);
  const step = points[1]! - points[0]!;
  if (step < -1 || step > 1) return false;
  return points.every((p, i) => i === 0 || p - points[i - 1]! === step);
}

/** The context-specific words of ASVS 5.0 V6.1.2: the username, and its local part when it is an e-mail address. */
function contextWords(context: PasswordContext): string[] {
  const username = context.username?.normalize('NFKC').toLowerCase();
  if (!username) return [];
  const at = username.lastIndexOf('@');
  return at > 0 ? [username, username.slice(0, at)] : [username];
}

/**
 * Checks a password against the policy.
 * @param password - as typed (normalised here).
 * @param context - the account, for the context-specific words.
 * @returns null when the password is acceptable, otherwise the message of the first broken rule,
 *   naming it (e.g. "Password policy (minimum length): …").
 */
export function passwordProblem(password: string, context: PasswordContext = {}): string | null {
  const normalised = normalisePassword(password);
  const length = passwordLength(normalised);
  if (length < MIN_PASSWORD_LENGTH)
    return (
      'Password policy (minimum length): ' +
      `a password needs at least ${MIN_PASSWORD_LENGTH} characters; this one has ${length}`
    );
  if (length > MAX_PASSWORD_LENGTH)
    return (
      'Password policy (maximum length): ' +
      `a password has at most ${MAX_PASSWORD_LENGTH} characters; this one has ${length}`
    );
  const folded = normalised.toLowerCase();
  if (commonPasswords().has(folded))
    return (
      'Password policy (common passwords): ' +
      'this password is in a list of common or breached passwords; choose another'
    );
  if (repetitiveOrSequential(folded))
    return (
      'Password policy (repetitive or sequential characters): ' +
      'a password must not be one character repeated or a run like "abcdefgh"; choose another'
    );
  if (contextWords(context).includes(folded))
    return 'Password policy (context-specific words): the password must not be the username, nor its part before "@"';
  return null;
}

/** 400: a password the policy refuses; the message names the rule. */
export class PasswordPolicyError extends InvalidRequest {
  override name = 'PasswordPolicyError';
}

/**
 * Applies the policy and returns the form to hash.
 * @param password - as typed.
 * @param context - the account, for the context-specific words.
 * @returns the NFKC form of the password.
 * @throws {PasswordPolicyError} (400) naming the broken rule.
 */
export function assertPasswordPolicy(password: string, context: PasswordContext = {}): string {
  const problem = passwordProblem(password, context);
  if (problem) throw new PasswordPolicyError(problem);
  return normalisePassword(password);
}
